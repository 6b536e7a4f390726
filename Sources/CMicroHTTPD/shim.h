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
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <microhttpd.h>

/** The request handler: MHD's access handler, typed for Swift (MHD_YES is 1, MHD_NO is 0). */
typedef int (*cmhd_handler)(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                            const char *upload_data, size_t *upload_data_size, void **request_state);

/** Called once per request when MHD is done with it, to free the handler's request state. */
typedef void (*cmhd_completed)(void *cls, struct MHD_Connection *connection, void **request_state);

/** Called when a request's first line has arrived on `connection` (before its headers). */
typedef void (*cmhd_begun)(void *cls, struct MHD_Connection *connection);

/** Called when a connection opens (1) and when it closes (0). */
typedef void (*cmhd_connection_event)(void *cls, struct MHD_Connection *connection, int opened);

struct cmhd_trampoline {
    cmhd_handler handler;
    cmhd_completed completed;
    cmhd_connection_event connection;
    cmhd_begun begun;
    void *cls;
};

static inline enum MHD_Result cmhd_access(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                          const char *version, const char *upload_data, size_t *upload_data_size,
                                          void **request_state) {
    (void)version;
    struct cmhd_trampoline *t = cls;
    return t->handler(t->cls, connection, url, method, upload_data, upload_data_size, request_state) ? MHD_YES : MHD_NO;
}

static inline void cmhd_done(void *cls, struct MHD_Connection *connection, void **request_state,
                             enum MHD_RequestTerminationCode code) {
    (void)code;
    struct cmhd_trampoline *t = cls;
    t->completed(t->cls, connection, request_state);
}

static inline void cmhd_connection_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                                          enum MHD_ConnectionNotificationCode code) {
    (void)socket_context;
    struct cmhd_trampoline *t = cls;
    t->connection(t->cls, connection, code == MHD_CONNECTION_NOTIFY_STARTED);
}

/** MHD's URI log callback: a request has begun (its state stays NULL until the handler sets it). */
static inline void *cmhd_uri_seen(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)uri;
    struct cmhd_trampoline *t = cls;
    t->begun(t->cls, connection);
    return NULL;
}

/** Closes an idle connection now: both directions of its socket shut, which the daemon's next
 *  run sees as the peer gone and cleans up. */
static inline void cmhd_connection_close(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != NULL) shutdown(info->connect_fd, SHUT_RDWR);
}

/** A listening TCP socket on `host` (an IPv4 or IPv6 address) and `port` (0: any free port), non-blocking,
 *  with a backlog of `backlog`; every event loop's daemon accepts from it. -1 on failure (errno set). */
static inline int cmhd_listen(const char *host, uint16_t port, int backlog) {
    struct sockaddr_storage address;
    socklen_t length;
    memset(&address, 0, sizeof address);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        length = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        length = sizeof *v6;
    } else {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&address, length) != 0 || listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/** Sends `message` as one datagram to the Unix socket `path` (a leading '@' names the abstract
 *  namespace), as systemd's sd_notify does: 1 when sent whole, 0 otherwise. */
static inline int cmhd_notify(const char *path, const char *message) {
    size_t path_length = strlen(path), message_length = strlen(message);
    struct sockaddr_un address;
    if (path_length == 0 || path_length >= sizeof address.sun_path) return 0;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, path, path_length);
    if (path[0] == '@') address.sun_path[0] = 0;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    socklen_t length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_length);
    ssize_t sent = sendto(fd, message, message_length, MSG_NOSIGNAL, (struct sockaddr *)&address, length);
    close(fd);
    return sent == (ssize_t)message_length;
}

/** The port a listening socket is bound to, IPv4 or IPv6 (0 when unknown). */
static inline uint16_t cmhd_socket_port(int fd) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return 0;
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return ntohs(((struct sockaddr_in *)&address)->sin_port);
}

/** MHD's URL unescaper, replaced by one that changes nothing: the access handler sees the path as
 *  sent, so `%2F` stays `%2F` (and serve refuses it) instead of becoming a `/` that splits a route
 *  name, and `%2E%2E` is not turned into a dot segment behind the gateway's back. Query arguments,
 *  which this unescaper also serves, are never read. Returns the length, as MHD expects. */
static inline size_t cmhd_unescape_nothing(void *cls, struct MHD_Connection *connection, char *uri) {
    (void)cls;
    (void)connection;
    return strlen(uri);
}

/** Starts a daemon that accepts from `listen_fd` and is driven by its caller's event loop (external
 *  epoll mode, suspend/resume allowed): at most `connections` connections, idle connections closed
 *  after `timeout_seconds`, `memory_limit` octets per connection (the request header cap).
 *  `trampoline` must live as long as the daemon. NULL on failure. */
static inline struct MHD_Daemon *cmhd_start_external(int listen_fd, unsigned int connections, unsigned int timeout_seconds,
                                                     size_t memory_limit, struct cmhd_trampoline *trampoline) {
    return MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO, 0, NULL, NULL, cmhd_access, trampoline,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_UNESCAPE_CALLBACK, cmhd_unescape_nothing, NULL,
                            MHD_OPTION_CONNECTION_LIMIT, connections,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, cmhd_done, trampoline,
                            MHD_OPTION_NOTIFY_CONNECTION, cmhd_connection_notify, trampoline,
                            MHD_OPTION_URI_LOG_CALLBACK, cmhd_uri_seen, trampoline,
                            MHD_OPTION_END);
}

/** The daemon's epoll descriptor, which is readable whenever `MHD_run` has work (-1 if none). */
static inline int cmhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/** How long the loop may wait before `MHD_run` is due (a connection's timeout), in milliseconds:
 *  -1 when nothing is due, 0 when MHD already has work at hand. */
static inline int cmhd_timeout_ms(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return -1;
    return timeout > 60000 ? 60000 : (int)timeout;
}

/** An event loop's wait set: an epoll set holding `daemon_epoll` (the daemon's epoll descriptor)
 *  and a new eventfd, stored in `*wake`, that other threads write to wake the loop. Returns the set's
 *  descriptor, or -1 (errno set, nothing left open). */
static inline int cmhd_loop_open(int daemon_epoll, int *wake) {
    int set = epoll_create1(EPOLL_CLOEXEC);
    if (set < 0) return -1;
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event first = { .events = EPOLLIN, .data.fd = daemon_epoll };
    struct epoll_event second = { .events = EPOLLIN, .data.fd = fd };
    if (fd < 0 || epoll_ctl(set, EPOLL_CTL_ADD, daemon_epoll, &first) != 0 || epoll_ctl(set, EPOLL_CTL_ADD, fd, &second) != 0) {
        int saved = errno;
        if (fd >= 0) close(fd);
        close(set);
        errno = saved;
        return -1;
    }
    *wake = fd;
    return set;
}

/** Waits up to `timeout_ms` (-1: without limit) for the set to be ready, emptying `wake` when it was
 *  written. Returns the number of ready descriptors (0 on timeout, 0 after a signal), -1 on error. */
static inline int cmhd_loop_wait(int set, int wake, int timeout_ms) {
    struct epoll_event ready[4];
    int count = epoll_wait(set, ready, 4, timeout_ms);
    if (count < 0) return errno == EINTR ? 0 : -1;
    for (int i = 0; i < count; i++) {
        if (ready[i].data.fd == wake) {
            uint64_t value;
            ssize_t ignored = read(wake, &value, sizeof value);
            (void)ignored;
        }
    }
    return count;
}

/** Wakes the loop waiting on the set that holds `wake`. */
static inline void cmhd_loop_wake(int wake) {
    uint64_t one = 1;
    ssize_t ignored = write(wake, &one, sizeof one);
    (void)ignored;
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

/** What cmhd_value_count's callback counts: the name looked for, and the matches so far. */
struct cmhd_count {
    const char *name;
    unsigned int found;
};

/** Whether `a` and `b` are equal with ASCII letters compared without case (no locale). */
static inline int cmhd_same_name(const char *a, const char *b) {
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        if (x != y) return 0;
        if (x == 0) return 1;
    }
}

static inline enum MHD_Result cmhd_count_one(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    (void)value;
    struct cmhd_count *count = cls;
    if (key != NULL && cmhd_same_name(key, count->name)) count->found += 1;
    return MHD_YES;
}

/** How many request headers (`kind` 0) or cookies (`kind` 1) are named `name`, compared without
 *  regard to letter case as MHD_lookup_connection_value does. That lookup returns the first only:
 *  this is how a second `Authorization` header, or a second cookie of one name, is seen. */
static inline unsigned int cmhd_value_count(struct MHD_Connection *connection, int kind, const char *name) {
    struct cmhd_count count = { name, 0 };
    MHD_get_connection_values(connection, kind == 1 ? MHD_COOKIE_KIND : MHD_HEADER_KIND, cmhd_count_one, &count);
    return count.found;
}

/** Queues a response: `status`, a body copied from `body`, and `count` headers given as
 *  alternating names and values. Returns 1 when queued. An empty value goes out as one space:
 *  MHD refuses an empty value, and a space is optional whitespace every HTTP parser strips
 *  (RFC 9110 §5.5), so the field arrives present and empty. */
static inline int cmhd_respond(struct MHD_Connection *connection, unsigned int status, const void *body, size_t length,
                               const char *const *headers, size_t count) {
    struct MHD_Response *response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return 0;
    for (size_t i = 0; i + 1 < 2 * count; i += 2) {
        const char *value = headers[i + 1][0] == 0 ? " " : headers[i + 1];
        if (MHD_add_response_header(response, headers[i], value) != MHD_YES) {
            MHD_destroy_response(response);
            return 0;
        }
    }
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued == MHD_YES;
}

#endif
