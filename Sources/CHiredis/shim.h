/* hiredis (Debian's libhiredis-dev), as `jwtverify serve --replay-store` sees it.
 *
 * Swift cannot call variadic C functions (redisCommand), and every reply must be freed once
 * whatever it holds: each exchange is done here, behind one prefixed static inline function that
 * frees what it made before it returns. A context is freed by chiredis_close alone. */
#ifndef CHIREDIS_SHIM_H
#define CHIREDIS_SHIM_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <hiredis/hiredis.h>

/** Copies `text` into `error` (`capacity` octets, always terminated). */
static inline void chiredis_copy_error(char *error, size_t capacity, const char *text) {
    if (capacity == 0) return;
    snprintf(error, capacity, "%s", text);
}

/** A connection to `host`:`port` whose connect, reads and writes each wait at most `timeout_ms`;
 *  NULL on failure, with nothing left allocated and the reason in `error`. */
static inline redisContext *chiredis_connect(const char *host, int port, int timeout_ms, char *error,
                                             size_t capacity) {
    struct timeval timeout = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    redisContext *context = redisConnectWithTimeout(host, port, timeout);
    if (context == NULL) {
        chiredis_copy_error(error, capacity, "cannot allocate a connection");
        return NULL;
    }
    if (context->err != 0 || redisSetTimeout(context, timeout) != REDIS_OK) {
        chiredis_copy_error(error, capacity, context->err != 0 ? context->errstr : "cannot set the timeout");
        redisFree(context);
        return NULL;
    }
    return context;
}

/** Frees a connection from chiredis_connect (once). */
static inline void chiredis_close(redisContext *context) { redisFree(context); }

/** `SET key 1 NX PX milliseconds`: 1 when the key was set now, 0 when it exists already, -1 when
 *  the connection failed (it is unusable: close it; the reason in `error`), -2 when the server
 *  answered something else (an error reply; the connection stays usable). The reply is freed. */
static inline int chiredis_set_once(redisContext *context, const char *key, size_t key_length, long long milliseconds,
                                    char *error, size_t capacity) {
    char expiry[24];
    int expiry_length = snprintf(expiry, sizeof expiry, "%lld", milliseconds);
    const char *argv[6] = { "SET", key, "1", "NX", "PX", expiry };
    size_t lengths[6] = { 3, key_length, 1, 2, 2, (size_t)expiry_length };
    redisReply *reply = redisCommandArgv(context, 6, argv, lengths);
    if (reply == NULL) {
        chiredis_copy_error(error, capacity, context->err != 0 ? context->errstr : "no reply");
        return -1;
    }
    int result;
    if (reply->type == REDIS_REPLY_STATUS && reply->len == 2 && memcmp(reply->str, "OK", 2) == 0) {
        result = 1;
    } else if (reply->type == REDIS_REPLY_NIL) {
        result = 0;
    } else {
        chiredis_copy_error(error, capacity, reply->type == REDIS_REPLY_ERROR ? reply->str : "an unexpected reply");
        result = -2;
    }
    freeReplyObject(reply);
    return result;
}

#endif
