/* libcurl, as JWTVerifyRemote's transport sees it.
 *
 * Swift cannot call curl_easy_setopt (it is variadic), so one request is set up and performed here,
 * behind one prefixed static inline function. The caller's sinks see the response's header lines
 * and its body as libcurl hands them over: the body already decoded (gzip), in chunks of at most a
 * few kilobytes, so a sink that returns 0 stops the transfer before anything more is decoded. */
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <stddef.h>
#include <string.h>
#include <curl/curl.h>

#if LIBCURL_VERSION_NUM < 0x075500
#error "JWTVerifyRemote needs libcurl >= 7.85 (CURLOPT_PROTOCOLS_STR)"
#endif

/** A sink for one header line or one chunk of decoded body: 1 to go on, 0 to stop the transfer now. */
typedef int (*ccurl_sink)(void *context, const char *data, size_t length);

/** The limits of one request. */
struct ccurl_limits {
    long connect_timeout_ms;
    long total_timeout_ms;
    /** Seconds the transfer may stay under one octet a second before it is abandoned. */
    long stall_seconds;
};

/** What one request ended with. `code` is the CURLcode (0 when an answer came whole, whatever its
 *  status); `redirect` holds the absolute target of a 3xx answer's Location, when it has one and it
 *  fits. */
struct ccurl_outcome {
    long status;
    int code;
    int redirect_too_long;
    char redirect[2048];
    char error[CURL_ERROR_SIZE];
};

struct ccurl_sinks {
    ccurl_sink header;
    ccurl_sink body;
    void *context;
};

static inline size_t ccurl_write_body(char *data, size_t size, size_t count, void *user) {
    struct ccurl_sinks *sinks = user;
    size_t length = size * count;
    return sinks->body(sinks->context, data, length) ? length : 0;
}

static inline size_t ccurl_write_header(char *data, size_t size, size_t count, void *user) {
    struct ccurl_sinks *sinks = user;
    size_t length = size * count;
    return sinks->header(sinks->context, data, length) ? length : 0;
}

/** Once per process, before any request (libcurl's global state). 0 on success. */
static inline int ccurl_global_init(void) { return (int)curl_global_init(CURL_GLOBAL_DEFAULT); }

/** Performs one request without following redirects: `method` ("GET", "POST"), `url`, `header_count`
 *  request header lines ("Name: value"), and `body` (sent when `body` is not NULL). Only http and
 *  https are spoken; gzip is asked for and decoded on the way to `on_body`. Returns the CURLcode
 *  (also in `outcome->code`). */
static inline int ccurl_perform(const char *method, const char *url, const char *const *headers, size_t header_count,
                                const void *body, size_t body_length, const struct ccurl_limits *limits,
                                ccurl_sink on_header, ccurl_sink on_body, void *context, struct ccurl_outcome *outcome) {
    memset(outcome, 0, sizeof *outcome);
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        outcome->code = CURLE_FAILED_INIT;
        return outcome->code;
    }
    struct ccurl_sinks sinks = { on_header, on_body, context };
    struct curl_slist *list = NULL;
    CURLcode code = CURLE_OK;
    for (size_t i = 0; i < header_count && code == CURLE_OK; i++) {
        struct curl_slist *next = curl_slist_append(list, headers[i]);
        if (next == NULL) code = CURLE_OUT_OF_MEMORY;
        else list = next;
    }
#define CCURL_SET(option, value) if (code == CURLE_OK) code = curl_easy_setopt(curl, option, value)
    CCURL_SET(CURLOPT_ERRORBUFFER, outcome->error);
    CCURL_SET(CURLOPT_URL, url);
    CCURL_SET(CURLOPT_PROTOCOLS_STR, "http,https");
    CCURL_SET(CURLOPT_FOLLOWLOCATION, 0L);
    CCURL_SET(CURLOPT_NOSIGNAL, 1L);
    CCURL_SET(CURLOPT_CONNECTTIMEOUT_MS, limits->connect_timeout_ms);
    CCURL_SET(CURLOPT_TIMEOUT_MS, limits->total_timeout_ms);
    CCURL_SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
    CCURL_SET(CURLOPT_LOW_SPEED_TIME, limits->stall_seconds);
    CCURL_SET(CURLOPT_ACCEPT_ENCODING, "gzip");
    CCURL_SET(CURLOPT_HTTPHEADER, list);
    CCURL_SET(CURLOPT_WRITEFUNCTION, ccurl_write_body);
    CCURL_SET(CURLOPT_WRITEDATA, &sinks);
    CCURL_SET(CURLOPT_HEADERFUNCTION, ccurl_write_header);
    CCURL_SET(CURLOPT_HEADERDATA, &sinks);
    CCURL_SET(CURLOPT_CUSTOMREQUEST, method);
    if (body != NULL) {
        CCURL_SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
        CCURL_SET(CURLOPT_COPYPOSTFIELDS, body);
    } else if (strcmp(method, "GET") == 0) {
        CCURL_SET(CURLOPT_HTTPGET, 1L);
    }
#undef CCURL_SET
    if (code == CURLE_OK) code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    outcome->status = status;
    char *target = NULL;
    if (code == CURLE_OK && status >= 300 && status < 400 &&
        curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &target) == CURLE_OK && target != NULL) {
        size_t length = strlen(target);
        if (length < sizeof outcome->redirect) memcpy(outcome->redirect, target, length + 1);
        else outcome->redirect_too_long = 1;
    }
    outcome->code = (int)code;
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return outcome->code;
}

/** libcurl's words for `code`. */
static inline const char *ccurl_describe(int code) { return curl_easy_strerror((CURLcode)code); }

#endif
