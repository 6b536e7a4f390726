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

    private static func withValue<R>(_ connection: OpaquePointer, kind: Int32, _ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let value = cmhd_value(connection, kind, name) else { return body(nil) }
        return body(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }
}

/// GNU libmicrohttpd in its epoll thread-pool mode, answering every request through `handler` on
/// one of `threads` threads. It parses HTTP; this type only moves requests and answers across.
package final class MicroHTTPDServer: @unchecked Sendable {
    /// Limits the daemon enforces.
    package struct Limits {
        package var threads: Int
        package var connections: Int
        /// Idle or stalled connections are closed after this many seconds.
        package var timeoutSeconds: Int
        /// Per-connection memory, which bounds the request line and headers (431 beyond it).
        package var headerBytes: Int
        /// Longest body read (413 beyond it).
        package var bodyBytes: Int

        package init(threads: Int, connections: Int, timeoutSeconds: Int, headerBytes: Int, bodyBytes: Int) {
            self.threads = threads
            self.connections = connections
            self.timeoutSeconds = timeoutSeconds
            self.headerBytes = headerBytes
            self.bodyBytes = bodyBytes
        }
    }

    /// Answers one request, on one of the daemon's threads.
    package typealias Handler = @Sendable (any HTTPRequest) -> HTTPResponse

    private let handler: Handler
    private let bodyLimit: Int
    // Safety: set once in init; MHD reads it from its threads until stop(), which joins them.
    private var daemon: OpaquePointer?
    private let trampoline: UnsafeMutablePointer<cmhd_trampoline>
    private let stopped = Mutex(false)

    /// The port listened on.
    package private(set) var port: UInt16 = 0

    /// Why the daemon did not start: the `errno` its start left.
    package struct ListenFailure: Error {
        package let code: Int32
        /// The system's words for ``code``.
        package var description: String { String(cString: strerror(code)) }
    }

    /// Starts listening on `host:port` (port 0: a free one).
    ///
    /// - Throws: ``ListenFailure`` when the daemon cannot start (the address is in use, say).
    ///   The trampoline is freed by `deinit` alone, which runs for a failed initializer too.
    package init(host: String, port: UInt16, limits: Limits, handler: @escaping Handler) throws(ListenFailure) {
        self.handler = handler
        self.bodyLimit = limits.bodyBytes
        trampoline = .allocate(capacity: 1)
        trampoline.initialize(to: cmhd_trampoline(handler: { cls, connection, url, method, upload, uploadSize, state in
            Unmanaged<MicroHTTPDServer>.fromOpaque(cls!).takeUnretainedValue().access(connection!, url!, method!, upload, uploadSize!, state!)
        }, completed: { cls, state in
            guard let state, let pointer = state.pointee else { return }
            Unmanaged<RequestState>.fromOpaque(pointer).release()
            state.pointee = nil
        }, cls: nil))
        trampoline.pointee.cls = Unmanaged.passUnretained(self).toOpaque()
        daemon = cmhd_start(
            host, port, UInt32(limits.threads), UInt32(limits.connections), UInt32(limits.timeoutSeconds), limits.headerBytes, trampoline)
        guard let daemon else { throw ListenFailure(code: errno) }
        self.port = cmhd_port(daemon)
    }

    deinit {
        stop()
        trampoline.deallocate()
    }

    /// Stops accepting connections, waits up to `seconds` for the open ones to finish their
    /// requests, then stops the daemon.
    package func drain(seconds: Double) {
        guard let daemon else { return }
        _ = MHD_quiesce_daemon(daemon)
        var waited = 0.0
        while cmhd_connections(daemon) > 0 && waited < seconds {
            usleep(20_000)
            waited += 0.02
        }
        stop()
    }

    /// Stops the daemon (its threads are joined); idempotent.
    package func stop() {
        let already = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !already, let daemon else { return }
        MHD_stop_daemon(daemon)
    }

    /// A request's body as it arrives.
    private final class RequestState {
        var body: [UInt8] = []
        var tooLarge = false
    }

    /// MHD's access handler: called once when the headers are in, once per chunk of body, and once
    /// more at the end, when the answer is queued.
    private func access(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ method: UnsafePointer<CChar>, _ upload: UnsafePointer<CChar>?,
        _ uploadSize: UnsafeMutablePointer<Int>, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Int32 {
        guard let pointer = state.pointee else {
            state.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
            return 1
        }
        let request = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !request.tooLarge, let upload {
                if request.body.count + uploadSize.pointee > bodyLimit {
                    request.tooLarge = true
                    request.body = []
                } else {
                    request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee))
                }
            }
            uploadSize.pointee = 0
            return 1
        }
        let response: HTTPResponse
        if request.tooLarge {
            response = HTTPResponse(
                status: 413, headers: [("Content-Type", "application/json")],
                body: Array(#"{"error":"body_too_large","limit":\#(bodyLimit)}"#.utf8) + [10])
        } else {
            response = handler(MicroHTTPDRequest(connection: connection, method: String(cString: method), path: String(cString: url), body: request.body))
        }
        return Self.queue(response, on: connection) ? 1 : 0
    }

    /// Queues `response`: header names and values are laid out as C strings in one buffer.
    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> Bool {
        var storage: [UInt8] = []
        storage.reserveCapacity(512)
        var offsets: [Int] = []
        offsets.reserveCapacity(2 * response.headers.count)
        func add(_ text: String) {
            offsets.append(storage.count)
            storage.append(contentsOf: text.utf8)
            storage.append(0)
        }
        for (name, value) in response.headers {
            add(name)
            add(value)
        }
        return storage.withUnsafeBytes { raw in
            let chars = raw.bindMemory(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { chars.baseAddress! + $0 }
            return pointers.withUnsafeBufferPointer { list in
                response.body.withUnsafeBytes { body in
                    cmhd_respond(connection, UInt32(response.status), body.baseAddress, body.count, list.baseAddress, response.headers.count) == 1
                }
            }
        }
    }
}
