import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request as libmicrohttpd holds it; header lookups are valid during the handler's call only.
struct MicroHTTPDRequest: HTTPRequest {
    let connection: OpaquePointer
    let method: String
    let path: String
    let body: [UInt8]

    func withHeader<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        Self.withValue(connection, kind: 0, name, body)
    }

    func withCookie<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        Self.withValue(connection, kind: 1, name, body)
    }

    func headerCount(_ name: String) -> Int { Int(cmhd_value_count(connection, 0, name)) }

    func cookieCount(_ name: String) -> Int { Int(cmhd_value_count(connection, 1, name)) }

    private static func withValue<R>(
        _ connection: OpaquePointer, kind: Int32, _ name: String, _ body: (UnsafeRawBufferPointer?) -> R
    ) -> R {
        guard let value = cmhd_value(connection, kind, name) else { return body(nil) }
        return body(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }
}

/// GNU libmicrohttpd behind `serve`: one listening socket, and `threads` event loops
/// (``ServerLoop``), each a thread driving a daemon of its own in external epoll mode that accepts
/// from that socket, so that `/auth` requests arriving together are verified together. It parses
/// HTTP; this type and the loops only move requests and answers across.
package final class MicroHTTPDServer: @unchecked Sendable {
    /// Limits the daemon enforces.
    package struct Limits {
        package var threads: Int
        package var connections: Int
        /// Idle or stalled connections are closed after this many seconds.
        package var timeoutSeconds: Int
        /// Per-connection memory, which bounds the request line and headers (431 beyond it).
        package var headerBytes: Int
        /// Longest body read (413 beyond it; at once when `Content-Length` says so).
        package var bodyBytes: Int
        /// A connection whose request head (request line and headers) is not complete this many
        /// seconds after it opened, or after its previous answer, is closed: a client sending a
        /// byte a second holds a connection at most this long.
        package var requestTimeoutSeconds: Double

        package init(
            threads: Int, connections: Int, timeoutSeconds: Int, headerBytes: Int, bodyBytes: Int,
            requestTimeoutSeconds: Double = 10
        ) {
            self.threads = threads
            self.connections = connections
            self.timeoutSeconds = timeoutSeconds
            self.headerBytes = headerBytes
            self.bodyBytes = bodyBytes
            self.requestTimeoutSeconds = requestTimeoutSeconds
        }
    }

    // Safety: `loops` and `listenSocket` are set in init; after that only stop() and drain()
    // touch them, and `stopped` lets the first of those calls do it.
    private var loops: [ServerLoop] = []
    private var listenSocket: Int32 = -1
    private let stopped = Mutex(false)

    /// The port listened on.
    package let port: UInt16

    /// Why the server did not start: the `errno` its start left.
    package struct ListenFailure: Error {
        package let code: Int32
        /// The system's words for ``code``.
        package var description: String { String(cString: strerror(code)) }
    }

    /// Starts listening on `host:port` (port 0: a free one), answering through `service`.
    ///
    /// - Throws: ``ListenFailure`` when the socket or a loop cannot start (the address is in use, say).
    package init(host: String, port: UInt16, limits: Limits, service: ServeService) throws(ListenFailure) {
        listenSocket = cmhd_listen(host, port, 1024)
        guard listenSocket >= 0 else { throw ListenFailure(code: errno) }
        self.port = cmhd_socket_port(listenSocket)
        do throws(ServerLoop.Failure) {
            for _ in 0..<max(1, limits.threads) {
                loops.append(try ServerLoop(listenSocket: listenSocket, limits: limits, service: service))
            }
        } catch {
            loops = []
            Glibc.close(listenSocket)
            throw ListenFailure(code: error.code)
        }
        for loop in loops where !loop.start() {
            let code = errno
            stop()
            throw ListenFailure(code: code)
        }
    }

    deinit { stop() }

    /// Stops accepting connections, lets the open ones finish for up to `seconds`, then stops.
    package func drain(seconds: Double) {
        let deadline = ThroughputClock.now() + seconds
        shutDown { $0.drain(until: deadline) }
    }

    /// Stops the loops (their threads are joined) and closes every connection; idempotent.
    package func stop() { shutDown { $0.stop() } }

    private func shutDown(_ ask: (ServerLoop) -> Void) {
        let already = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !already else { return }
        for loop in loops { ask(loop) }
        for loop in loops {
            loop.join()
            loop.close()
        }
        loops = []
        if listenSocket >= 0 { Glibc.close(listenSocket) }
        listenSocket = -1
    }
}
