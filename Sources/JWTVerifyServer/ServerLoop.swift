import CMicroHTTPD
import JWTVerify
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One of the server's event loops: a thread of its own driving a libmicrohttpd daemon (external
/// epoll mode) that accepts from the server's listening socket.
///
/// Each pass waits for the daemon's descriptors, lets `MHD_run` read whatever is ready, and
/// answers each request through the service; an `/auth` request with a token is suspended and held
/// in the loop's ``AuthGathering``. The gathering is flushed (its requests verified together and
/// resumed) when the loop finds nothing more ready, when it is full and another request comes, or
/// after a few passes of other work: so a lone request is verified at once, no timer adds
/// latency, and busy connections cannot hold the gathered ones back.
final class ServerLoop: @unchecked Sendable {
    // Safety: everything but `command` and `wake` is touched by the loop's own thread only, once
    // `start()` has run; `command` is a Mutex and `wake` an eventfd written by other threads.

    /// What other threads ask of the loop.
    private enum Command {
        case run
        /// Stop accepting, finish the open connections, and exit by `deadline` (monotonic seconds).
        case drain(deadline: Double)
        case stop
    }

    private let service: ServeService
    private let bodyLimit: Int
    private let trampoline: UnsafeMutablePointer<cmhd_trampoline>
    /// The daemon; stopped by ``close()``, after the thread has been joined.
    private(set) var daemon: OpaquePointer?
    /// This loop's epoll set: the daemon's epoll descriptor and `wake`.
    private var events: Int32 = -1
    /// Written to wake the loop for a command.
    private var wake: Int32 = -1
    private let command = Mutex(Command.run)
    private let gathering = AuthGathering()
    /// Requests held while the key refresh their unknown `kid` started runs, each with its
    /// suspended connection: answered when the refresh ends or at their deadline, whichever comes
    /// first, while the loop goes on serving everything else.
    private var waiting: [(request: RequestState, connection: OpaquePointer, wait: KeyWait)] = []
    private var thread = pthread_t()
    private var started = false
    private var quiesced = false
    /// The daemon's open connections with no request under way (none begun, or the last one
    /// answered): a gateway's kept-alive connections, between requests. A drain closes these at
    /// once, and each other one as soon as its request is answered (the loop's thread only).
    private var idle: Set<OpaquePointer> = []

    /// A request on `connection` is done: the connection is idle again, closed now when draining;
    /// the next request's head is due within the request time-out.
    private func requestEnded(on connection: OpaquePointer) {
        if quiesced { cmhd_connection_close(connection) } else { idle.insert(connection) }
        headDue[connection] = ThroughputClock.now() + requestTimeout
    }

    /// `connection` opened: its first request's head is due within the request time-out.
    private func opened(_ connection: OpaquePointer) {
        idle.insert(connection)
        headDue[connection] = ThroughputClock.now() + requestTimeout
    }

    /// `connection` is closed.
    private func forget(_ connection: OpaquePointer) {
        idle.remove(connection)
        headDue.removeValue(forKey: connection)
    }

    /// Per connection whose request head has not arrived whole: when it is due (monotonic
    /// seconds). Past it, the connection is closed, however busy its client keeps it.
    private var headDue: [OpaquePointer: Double] = [:]
    private let requestTimeout: Double
    /// The most connections this loop's daemon holds.
    private let connectionLimit: UInt32
    /// When the loop next looks for overdue heads.
    private var nextHeadCheck = 0.0

    /// Closes the connections whose request head is overdue; at most every 100 ms.
    private func closeOverdueHeads() {
        guard !headDue.isEmpty else { return }
        let now = ThroughputClock.now()
        guard now >= nextHeadCheck else { return }
        var next = now + requestTimeout
        for (connection, due) in headDue {
            if due <= now {
                cmhd_connection_close(connection)
                headDue.removeValue(forKey: connection)
            } else {
                next = min(next, due)
            }
        }
        nextHeadCheck = max(next, now + 0.1)
    }
    /// Whether a flush resumed connections the daemon has not run since (the daemon's timeout
    /// does not count them, so the loop must not wait before running it).
    private var resumed = false
    /// When the held requests are flushed.
    private var policy = FlushPolicy()

    /// Why a loop could not be made: the `errno` left by the call that failed.
    struct Failure: Error { let code: Int32 }

    /// A loop whose daemon accepts from `listenSocket`, answering through `service`; its thread
    /// starts with ``start()``.
    init(listenSocket: Int32, limits: MicroHTTPDServer.Limits, service: ServeService) throws(Failure) {
        self.service = service
        self.bodyLimit = limits.bodyBytes
        self.requestTimeout = limits.requestTimeoutSeconds
        self.connectionLimit = UInt32(max(1, limits.connections / max(1, limits.threads)))
        trampoline = .allocate(capacity: 1)
        trampoline.initialize(
            to: cmhd_trampoline(
                handler: { cls, connection, url, method, upload, uploadSize, state in
                    Unmanaged<ServerLoop>.fromOpaque(cls!).takeUnretainedValue().access(
                        connection!, url!, method!, upload, uploadSize!, state!)
                },
                completed: { cls, connection, state in
                    let loop = Unmanaged<ServerLoop>.fromOpaque(cls!).takeUnretainedValue()
                    if let connection { loop.requestEnded(on: connection) }
                    guard let state, let pointer = state.pointee else { return }
                    Unmanaged<RequestState>.fromOpaque(pointer).release()
                    state.pointee = nil
                },
                connection: { cls, connection, opened in
                    let loop = Unmanaged<ServerLoop>.fromOpaque(cls!).takeUnretainedValue()
                    if opened != 0 { loop.opened(connection!) } else { loop.forget(connection!) }
                },
                begun: { cls, connection in
                    Unmanaged<ServerLoop>.fromOpaque(cls!).takeUnretainedValue().idle.remove(connection!)
                }, cls: nil))
        trampoline.pointee.cls = Unmanaged.passUnretained(self).toOpaque()
        let perLoop = max(1, limits.connections / max(1, limits.threads))
        daemon = cmhd_start_external(
            listenSocket, UInt32(perLoop), UInt32(limits.timeoutSeconds), limits.headerBytes, trampoline)
        guard let daemon else { throw Failure(code: errno == 0 ? EINVAL : errno) }
        var wake: Int32 = -1
        events = cmhd_loop_open(cmhd_epoll_fd(daemon), &wake)
        self.wake = wake
        guard events >= 0 else { throw Failure(code: errno) }
    }

    deinit {
        close()
        if events >= 0 { Glibc.close(events) }
        if wake >= 0 { Glibc.close(wake) }
        trampoline.deallocate()
    }

    /// Starts the loop's thread.
    func start() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<ServerLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        if status != 0 {
            Unmanaged<ServerLoop>.fromOpaque(context).release()
            return false
        }
        started = true
        return true
    }

    /// Asks the loop to stop accepting and to exit once its connections are done or at `deadline`.
    func drain(until deadline: Double) { send(.drain(deadline: deadline)) }

    /// Asks the loop to exit at its next pass.
    func stop() { send(.stop) }

    /// Waits for the loop's thread to exit.
    func join() {
        guard started else { return }
        pthread_join(thread, nil)
        started = false
    }

    /// Stops the daemon without closing the shared listening socket; the thread must have exited.
    func close() {
        guard let daemon else { return }
        if !quiesced { _ = MHD_quiesce_daemon(daemon) }
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    private func send(_ next: Command) {
        command.withLock { $0 = next }
        cmhd_loop_wake(wake)
    }

    /// The loop: wait, run the daemon, flush when nothing more is ready.
    private func run() {
        guard let daemon else { return }
        while true {
            var draining = false
            switch command.withLock({ $0 }) {
            case .run: break
            case .stop: return finish()
            case .drain(let deadline):
                if !quiesced {
                    _ = MHD_quiesce_daemon(daemon)
                    quiesced = true
                    for connection in idle { cmhd_connection_close(connection) }
                    idle.removeAll()
                }
                if gathering.isEmpty && waiting.isEmpty
                    && (cmhd_connections(daemon) == 0 || ThroughputClock.now() >= deadline)
                {
                    return finish()
                }
                draining = true
            }
            let daemonTimeout = Int(cmhd_timeout_ms(daemon))
            var timeout = FlushPolicy.waitMilliseconds(
                daemonTimeout: daemonTimeout, holding: !gathering.isEmpty, resumed: resumed, draining: draining)
            for due in [waiting.map(\.wait.deadline).min(), headDue.isEmpty ? nil : nextHeadCheck] {
                guard let due else { continue }
                let untilDue = max(0, Int(((due - ThroughputClock.now()) * 1000).rounded(.up)))
                timeout = timeout < 0 ? untilDue : min(timeout, untilDue)
            }
            let count = cmhd_loop_wait(events, wake, Int32(timeout))
            if count < 0 { return finish() }
            settleWaits(expiringAll: false)
            closeOverdueHeads()
            if policy.shouldFlush(
                holding: !gathering.isEmpty, ready: Int(count), daemonTimeout: daemonTimeout, resumed: resumed)
            {
                // Nothing more is ready (or the held requests waited long enough): verify what
                // the loop holds, resume those requests, and let the daemon send their answers
                // (it takes a resume at its next run).
                flush()
            }
            resumed = false
            let full = cmhd_connections(daemon) >= connectionLimit
            _ = MHD_run(daemon)
            // A daemon at its connection limit takes its listening socket out of its epoll set and
            // puts it back only at the start of its next run: when this run closed connections,
            // run again at once, or clients waiting in the backlog wait until something else
            // wakes the loop.
            if full && cmhd_connections(daemon) < connectionLimit { resumed = true }
        }
    }

    /// Answers what the loop holds and lets the daemon send those answers.
    private func finish() {
        flush()
        settleWaits(expiringAll: true)
        if let daemon, resumed { _ = MHD_run(daemon) }
    }

    /// Answers the key waits whose refresh has ended (evaluated again) or whose deadline has come
    /// (`jwks_unavailable`); with `expiringAll`, every one left.
    private func settleWaits(expiringAll: Bool) {
        guard !waiting.isEmpty else { return }
        let now = ThroughputClock.now()
        var kept = 0
        for index in waiting.indices {
            let held = waiting[index]
            let response: HTTPResponse
            if held.wait.refresh.outcome != nil {
                response = held.wait.retry()
            } else if expiringAll || now >= held.wait.deadline {
                response = held.wait.expired()
            } else {
                waiting[kept] = held
                kept += 1
                continue
            }
            held.request.response = response
            held.request.suspended = nil
            MHD_resume_connection(held.connection)
            resumed = true
        }
        waiting.removeSubrange(kept...)
    }

    /// Holds `request`'s suspended `connection` until `wait` is settled; the refresh's end wakes
    /// the loop.
    private func hold(_ request: RequestState, on connection: OpaquePointer, until wait: KeyWait) {
        request.suspended = connection
        waiting.append((request, connection, wait))
        wait.refresh.whenDone { [weak self] _ in self?.wakeUp() }
    }

    /// Wakes the loop from any thread.
    private func wakeUp() { cmhd_loop_wake(wake) }

    /// Verifies the held requests together and resumes each with its answer.
    private func flush() {
        guard !gathering.isEmpty else { return }
        resumed = true
        policy.flushed()
        service.flush(gathering) { ticket, reply in
            let state = Unmanaged<RequestState>.fromOpaque(ticket).takeUnretainedValue()
            guard let connection = state.suspended else { return }
            switch reply {
            case .answer(let response):
                state.response = response
                state.suspended = nil
                MHD_resume_connection(connection)
            case .waiting(let wait):
                hold(state, on: connection, until: wait)
            case .held:
                break
            }
        }
    }

    /// A request as it arrives, and its answer while its connection is suspended.
    private final class RequestState {
        var body: [UInt8] = []
        var tooLarge = false
        /// The connection, while suspended in the gathering.
        var suspended: OpaquePointer?
        /// The answer a flush left for it.
        var response: HTTPResponse?
    }

    /// MHD's access handler: called once when the headers are in, once per chunk of body, once
    /// more at the end, and once again after a resume, when the held answer is queued.
    private func access(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ method: UnsafePointer<CChar>,
        _ upload: UnsafePointer<CChar>?,
        _ uploadSize: UnsafeMutablePointer<Int>, _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> Int32 {
        guard let pointer = state.pointee else {
            // The request's head is in: it is no longer due.
            headDue.removeValue(forKey: connection)
            state.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
            if let declared = Self.contentLength(connection), declared > bodyLimit {
                return queue(Self.bodyTooLarge(bodyLimit), on: connection) ? 1 : 0
            }
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
        if let response = request.response {
            request.response = nil
            return queue(response, on: connection) ? 1 : 0
        }
        if request.tooLarge { return queue(Self.bodyTooLarge(bodyLimit), on: connection) ? 1 : 0 }
        if FlushPolicy.mustFlushBeforeHolding(held: gathering.count, capacity: AuthGathering.limit) { flush() }
        let incoming = MicroHTTPDRequest(
            connection: connection, method: String(cString: method), path: String(cString: url), body: request.body)
        switch service.respond(to: incoming, gathering: gathering, ticket: pointer) {
        case .answer(let response):
            return queue(response, on: connection) ? 1 : 0
        case .held:
            request.suspended = connection
        case .waiting(let wait):
            hold(request, on: connection, until: wait)
        }
        MHD_suspend_connection(connection)
        return 1
    }

    /// 413 for a body over `limit` octets.
    private static func bodyTooLarge(_ limit: Int) -> HTTPResponse {
        HTTPResponse(
            status: 413,
            headers: [("Content-Type", "application/json"), ("Connection", "close"), ("Cache-Control", "no-store")],
            body: Array(#"{"error":"body_too_large","limit":\#(limit)}"#.utf8) + [10])
    }

    /// The request's `Content-Length`, when it has one made of digits only (an absurd one counts
    /// as `Int.max`).
    private static func contentLength(_ connection: OpaquePointer) -> Int? {
        guard let value = cmhd_value(connection, 0, "Content-Length") else { return nil }
        var length = 0
        var digits = 0
        var pointer = value
        while pointer.pointee != 0 {
            let byte = UInt8(bitPattern: pointer.pointee)
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (product, overflow) = length.multipliedReportingOverflow(by: 10)
            length = overflow ? Int.max : min(Int.max - 9, product) + Int(byte - 0x30)
            digits += 1
            pointer += 1
        }
        return digits > 0 ? length : nil
    }

    /// Queues `response` (with `Connection: close` once draining, so that no client sends another
    /// request on the connection).
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> Bool {
        guard quiesced else { return Self.queue(response, on: connection) }
        var closing = response
        closing.headers.append(("Connection", "close"))
        return Self.queue(closing, on: connection)
    }

    /// Queues `response`: header names and values are laid out as C strings in one buffer on the
    /// stack (libmicrohttpd copies them).
    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> Bool {
        var length = 0
        for (name, value) in response.headers { length += name.utf8.count + value.utf8.count + 2 }
        let count = response.headers.count
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: max(length, 1)) { storage in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: max(2 * count, 1)) { pointers in
                var offset = 0
                var index = 0
                func add(_ text: String) {
                    pointers[index] = UnsafePointer(storage.baseAddress! + offset)
                    index += 1
                    for byte in text.utf8 {
                        storage[offset] = CChar(bitPattern: byte)
                        offset += 1
                    }
                    storage[offset] = 0
                    offset += 1
                }
                for (name, value) in response.headers {
                    add(name)
                    add(value)
                }
                return response.body.withUnsafeBytes { body in
                    cmhd_respond(
                        connection, UInt32(response.status), body.baseAddress, body.count,
                        UnsafePointer(pointers.baseAddress), count) == 1
                }
            }
        }
    }
}
