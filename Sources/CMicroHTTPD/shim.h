/* GNU libmicrohttpd, as `jwtverify serve` sees it.
 *
 * Swift cannot call variadic C functions (MHD_start_daemon takes its options as varargs), and a
 * response is built from several calls whose pointers must stay valid in between. Each such
 * sequence is done here, behind one prefixed static inline function. */
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/** The request handler: MHD's access handler, typed for Swift (MHD_YES is 1, MHD_NO is 0). */
typedef int (*cmhd_handler)(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                            const char *upload_data, size_t *upload_data_size, void **request_state);

/** Called once per request when MHD is done with it, to free the handler's request state. */
typedef void (*cmhd_completed)(void *cls, void **request_state);

struct cmhd_trampoline { cmhd_handler handler; cmhd_completed completed; void *cls; };

static inline enum MHD_Result cmhd_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                          const char *version, const char *upload_data, size_t *upload_data_size,
                                          void **request_state) {
    (void)version;
    struct cmhd_trampoline *t = cls;
    return t->handler(t->cls, connection, url, method, upload_data, upload_data_size, request_state) ? MHD_YES : MHD_NO;
}

static inline void cmhd_done(void *cls, struct MHD_Connection *connection, void **request_state,
                             enum MHD_RequestTerminationCode code) {
    (void)connection;
    (void)code;
    struct cmhd_trampoline *t = cls;
    t->completed(t->cls, request_state);
}

/** Starts a daemon on `host` (IPv4 dotted quad) and `port` (0: any free port) with an epoll thread
 *  pool of `threads`, at most `connections` connections, idle connections closed after
 *  `timeout_seconds`, and `memory_limit` octets per connection (the request header cap).
 *  `trampoline` must live as long as the daemon. NULL on failure. */
static inline struct MHD_Daemon *cmhd_start(const char *host, uint16_t port, unsigned int threads, unsigned int connections,
                                            unsigned int timeout_seconds, size_t memory_limit,
                                            struct cmhd_trampoline *trampoline) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) { errno = EINVAL; return NULL; }
    return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_TURBO, port, NULL, NULL, cmhd_access, trampoline,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connections,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
                            MHD_OPTION_NOTIFY_COMPLETED, cmhd_done, trampoline,
                            MHD_OPTION_END);
}

/** The port the daemon listens on. */
static inline uint16_t cmhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/** Connections open now. */
static inline unsigned int cmhd_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/** A request header's value (NULL when absent); `kind` 0 for headers, 1 for cookies. */
static inline const char *cmhd_value(struct MHD_Connection *connection, int kind, const char *name) {
    return MHD_lookup_connection_value(connection, kind == 1 ? MHD_COOKIE_KIND : MHD_HEADER_KIND, name);
}

/** Queues a response: `status`, a body copied from `body`, and `count` headers given as
 *  alternating names and values. Returns 1 when queued. */
static inline int cmhd_respond(struct MHD_Connection *connection, unsigned int status, const void *body, size_t length,
                               const char *const *headers, size_t count) {
    struct MHD_Response *response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return 0;
    for (size_t i = 0; i + 1 < 2 * count; i += 2) {
        if (MHD_add_response_header(response, headers[i], headers[i + 1]) != MHD_YES) {
            MHD_destroy_response(response);
            return 0;
        }
    }
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued == MHD_YES;
}

#endif
