import JWTVerify
import JWTVerifyTooling
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `serve` does with each request, whatever transport carries it: route it, take the token,
/// run the route's verifier, and answer. The routes can be swapped whole (SIGHUP) while requests
/// are in flight.
package final class ServeService: Sendable {
    private let current: Mutex<ServeRoutes>
    package let metrics = ServeMetrics()
    /// Each route's notifications seen lately (by route name, so a reload keeps them).
    private let windows = Mutex<[String: NotificationReplayWindow]>([:])
    /// Where access-log lines go (`--access-log`), if anywhere.
    private let accessLog: (@Sendable (String) -> Void)?

    /// A service answering with `routes`; `accessLog` receives one JSON line per request.
    package init(routes: ServeRoutes, accessLog: (@Sendable (String) -> Void)? = nil) {
        self.current = Mutex(routes)
        self.accessLog = accessLog
    }

    /// The routes now.
    package var routes: ServeRoutes { current.withLock { $0 } }

    /// Replaces the routes (a reload).
    package func replace(_ routes: ServeRoutes) { current.withLock { $0 = routes } }

    /// Answers one request at once: an `/auth` request is verified alone, through the same
    /// gathering and flush as the server's (for tests and in-process callers).
    package func handle(_ request: some HTTPRequest) -> HTTPResponse {
        let gathering = AuthGathering()
        let ticket = UnsafeMutableRawPointer(bitPattern: 1)!
        if let response = respond(to: request, gathering: gathering, ticket: ticket) { return response }
        var answer = HTTPResponse(status: 500)
        flush(gathering) { _, response in answer = response }
        return answer
    }

    /// Answers `request` now, or holds it in `gathering` and returns `nil`: an `/auth` request
    /// with a well-formed token is held, to be answered by ``flush(_:deliver:)`` under `ticket`.
    /// A full gathering must be flushed before this is called again.
    package func respond(to request: some HTTPRequest, gathering: AuthGathering, ticket: UnsafeMutableRawPointer) -> HTTPResponse? {
        var log = AccessRecord(started: ThroughputClock.now())
        if accessLog != nil {
            log.method = request.method
            log.path = request.path
        }
        let response: HTTPResponse
        let path = request.path
        switch RequestPath.parse(path) {
        case .failure(let refusal):
            response = Self.badRequest(refusal)
        case .success(let parsed) where parsed.endpoint == .auth:
            guard Self.isAuthMethod(request.method) else {
                response = Self.methodNotAllowed("GET, HEAD, POST")
                break
            }
            guard let route = routes.route(named: parsed.routeName) else {
                response = Self.notFound("no route for \(path)")
                break
            }
            log.route = route.name
            guard let answer = gather(request, route: route, gathering: gathering, ticket: ticket, log: &log) else { return nil }
            response = HTTPResponse(status: answer.status, headers: answer.headers)
        case .success(let parsed):
            response = answer(request, path: parsed, log: &log)
        }
        return finish(response, log: &log)
    }

    /// Verifies every request `gathering` holds, one batch per route, and hands each answer to
    /// `deliver` with its ticket, in arrival order; the gathering is empty afterwards.
    package func flush(_ gathering: AuthGathering, deliver: (UnsafeMutableRawPointer, HTTPResponse) -> Void) {
        guard !gathering.isEmpty else { return }
        defer { gathering.removeAll() }
        let count = gathering.entries.count
        gathering.answers.removeAll(keepingCapacity: true)
        gathering.answers.append(contentsOf: repeatElement(nil, count: count))
        let first = gathering.entries[0].route
        let sameRoute = gathering.entries.allSatisfy { $0.route === first }
        // One route at a time: the first entry still without an answer names the next.
        for next in 0..<count where gathering.answers[next] == nil {
            let route = gathering.entries[next].route
            gathering.positions.removeAll(keepingCapacity: true)
            for index in next..<count where gathering.entries[index].route === route { gathering.positions.append(index) }
            if !sameRoute {
                gathering.routeTokens.removeAll()
                for index in gathering.positions { gathering.routeTokens.append(from: gathering.tokens, at: index) }
            }
            let batch = sameRoute ? gathering.tokens : gathering.routeTokens
            let options = route.configuration
            let started = ThroughputClock.now()
            route.evaluate(batch) { position, result in
                let index = gathering.positions[position]
                gathering.answers[index] = GatewayAnswer.verdict(result, claimHeaders: options.claimHeaders, realm: options.realm)
                gathering.entries[index].reason = if case .failure(let error) = result { error.reason } else { nil }
            }
            let seconds = (ThroughputClock.now() - started) / Double(batch.count)
            metrics.batch(route: route.name, count: batch.count, secondsEach: seconds) { gathering.entries[gathering.positions[$0]].reason }
        }
        for index in 0..<count {
            var log = gathering.entries[index].log
            log.reason = gathering.entries[index].reason?.rawValue
            let answer = gathering.answers[index]!
            deliver(gathering.entries[index].ticket, finish(HTTPResponse(status: answer.status, headers: answer.headers), log: &log))
        }
    }

    /// Counts `response` and writes its access-log line.
    private func finish(_ response: HTTPResponse, log: inout AccessRecord) -> HTTPResponse {
        metrics.response(status: response.status)
        if let accessLog {
            log.status = response.status
            log.latency = ThroughputClock.now() - log.started
            accessLog(log.line())
        }
        return response
    }

    /// Every request but an `/auth` one, its path parsed (``RequestPath``).
    private func answer(
        _ request: some HTTPRequest, path parsed: RequestPath, log: inout AccessRecord
    ) -> HTTPResponse {
        let path = request.path
        switch (parsed.endpoint, parsed.routeName) {
        case (.verify?, let name):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard let route = routes.route(named: name) else { return Self.notFound("no route for \(path)") }
            log.route = route.name
            return verifyBody(request.body, route: route, log: &log)
        case (.notifications?, let name), (.appstore?, let name):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard let route = routes.route(named: name) else { return Self.notFound("no route for \(path)") }
            guard route.receivesNotifications else {
                return Self.notFound("route \(route.name) receives no notifications (--profile apple-notification or app-store)")
            }
            log.route = route.name
            return notification(request.body, route: route, log: &log)
        case (.metrics?, nil):
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(metrics.exposition(routes: routes.routes.values.sorted { $0.name < $1.name }.map(\.metricsState)).utf8))
        case (.healthz?, nil):
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ok\n".utf8))
        case (.ready?, nil):
            let waiting = routes.routes.values.filter { !$0.isReady }.map(\.name).sorted()
            return waiting.isEmpty
                ? HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ready\n".utf8))
                : HTTPResponse(
                    status: 503, headers: [("Content-Type", "text/plain")], body: Array("no keys yet for: \(waiting.joined(separator: ", "))\n".utf8))
        default:
            return Self.notFound("unknown path \(path)")
        }
    }

    /// `/auth` takes GET, HEAD and POST.
    private static func isAuthMethod(_ method: String) -> Bool { method == "GET" || method == "HEAD" || method == "POST" }

    /// `/auth`: the gateway check. A well-formed token is held in `gathering` (`nil`); no token
    /// or a malformed one is answered at once.
    private func gather(
        _ request: some HTTPRequest, route: ServeRoute, gathering: AuthGathering, ticket: UnsafeMutableRawPointer, log: inout AccessRecord
    ) -> GatewayAnswer? {
        let options = route.configuration
        return withToken(request, options) { token -> GatewayAnswer? in
            guard let token else {
                metrics.missingToken(route: route.name)
                return GatewayAnswer.noToken(realm: options.realm)
            }
            guard case .token(let range) = token.parsed else {
                log.reason = VerificationError.Reason.malformed.rawValue
                metrics.verification(route: route.name, reason: .malformed, seconds: 0)
                return GatewayAnswer.rejected(.malformed, realm: options.realm)
            }
            let bytes = UnsafeRawBufferPointer(rebasing: token.value[range])
            if accessLog != nil { log.fingerprint = SHA256Digest(hashing: bytes) }
            guard route.gathers else { return verifyAlone(bytes, route: route, gathering: gathering, log: &log) }
            gathering.hold(bytes, route: route, ticket: ticket, log: log)
            return nil
        }
    }

    /// The answer for one token of a route that does not gather: the same batch stages for a
    /// batch of one, at once.
    private func verifyAlone(_ token: UnsafeRawBufferPointer, route: ServeRoute, gathering: AuthGathering, log: inout AccessRecord) -> GatewayAnswer {
        gathering.alone.removeAll()
        AuthGathering.append(token, nonce: route.configuration.nonce, to: &gathering.alone)
        let options = route.configuration
        var answer = GatewayAnswer.rejected(.keySetUnavailable, realm: options.realm)
        var reason: VerificationError.Reason? = .keySetUnavailable
        let started = ThroughputClock.now()
        route.evaluate(gathering.alone) { _, result in
            answer = GatewayAnswer.verdict(result, claimHeaders: options.claimHeaders, realm: options.realm)
            reason = if case .failure(let error) = result { error.reason } else { nil }
        }
        metrics.batch(route: route.name, count: 1, secondsEach: ThroughputClock.now() - started) { _ in reason }
        log.reason = reason?.rawValue
        return answer
    }

    /// Where a request's token is: `Authorization: Bearer`, else the route's header, else its cookie.
    private func withToken<R>(
        _ request: some HTTPRequest, _ options: RouteConfiguration, _ body: ((value: UnsafeRawBufferPointer, parsed: BearerCredential.Parsed)?) -> R
    ) -> R {
        let fromAuthorization = request.withHeader("Authorization") { value -> R? in
            guard let value else { return nil }
            let parsed = BearerCredential.parse(authorization: value)
            return parsed == .absent ? nil : body((value, parsed))
        }
        if let fromAuthorization { return fromAuthorization }
        if let name = options.tokenHeader {
            let answer = request.withHeader(name) { value -> R? in
                guard let value, case let parsed = BearerCredential.parse(plain: value), parsed != .absent else { return nil }
                return body((value, parsed))
            }
            if let answer { return answer }
        }
        if let name = options.tokenCookie {
            let answer = request.withCookie(name) { value -> R? in
                guard let value, case let parsed = BearerCredential.parse(plain: value), parsed != .absent else { return nil }
                return body((value, parsed))
            }
            if let answer { return answer }
        }
        return body(nil)
    }

    /// `/verify`: the body's requests through the route's verifier, answered with `verify`'s records.
    /// A line naming a `kid` a remote key set lacks waits for at most one refresh, as `/auth` does,
    /// and then the whole body is evaluated again.
    private func verifyBody(_ body: [UInt8], route: ServeRoute, log: inout AccessRecord) -> HTTPResponse {
        let started = ThroughputClock.now()
        let evaluated = route.withVerifier(namesUnknownKey: Self.namesUnknownKey) { verifier in
            VerifyBody.evaluate(
                body, with: RequestLineEvaluator(verifier: verifier, defaultNonce: route.configuration.nonce, time: route.configuration.time))
        }
        let outcome: Result<VerifyBody.Records, VerifyBody.Problem>
        switch evaluated {
        case .success(let value): outcome = value
        case .failure(let error):
            log.reason = error.reason.rawValue
            return HTTPResponse(
                status: 503, headers: [("Content-Type", "application/json"), ("Retry-After", "5")],
                body: Array(#"{"error":"jwks_unavailable"}"#.utf8) + [10])
        }
        switch outcome {
        case .failure(let problem):
            log.reason = "body_not_json"
            return HTTPResponse(status: 400, headers: [("Content-Type", "application/json")], body: problem.json)
        case .success(let records):
            let seconds = (ThroughputClock.now() - started) / Double(max(1, records.tally.total))
            let counts: [(String?, Int)] = [(nil, records.tally.valid)] + records.tally.byReason.map { ($0.key, $0.value) }
            for (reason, count) in counts {
                for _ in 0..<count { metrics.verification(route: route.name, reason: reason.map(VerificationError.Reason.init(rawValue:)), seconds: seconds) }
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: records.output)
        }
    }

    /// `/notifications`: Apple's envelope read, its JWS through the route's pipeline as a batch of
    /// one, and its ID looked up in the route's replay window.
    private func notification(_ body: [UInt8], route: ServeRoute, log: inout AccessRecord) -> HTTPResponse {
        let time: Double = if case .fixed(let fixed) = route.configuration.time { fixed } else { VerificationPolicy.systemClock() }
        let started = ThroughputClock.now()
        var verified = false
        let received = body.withUnsafeBytes { bytes in
            NotificationReceiver.receive(bytes, window: replayWindow(for: route), at: time) { jws in
                verified = true
                var batch = TokenBatch()
                batch.append(bytes: jws, nonce: nil)
                var result: Result<VerifiedToken, VerificationError> = .failure(VerificationError(.keySetUnavailable))
                route.evaluate(batch) { _, outcome in result = outcome }
                return result
            }
        }
        let reason: String? = if case .failure(let rejection) = received { rejection.code } else { nil }
        if verified {
            metrics.verification(route: route.name, reason: reason.map(VerificationError.Reason.init(rawValue:)), seconds: ThroughputClock.now() - started)
        }
        log.reason = reason
        return NotificationAnswer.answer(received, rules: route.policy.rules)
    }

    /// The replay window of a route's notifications, kept by name across reloads.
    private func replayWindow(for route: ServeRoute) -> NotificationReplayWindow {
        windows.withLock { windows in
            if let window = windows[route.name] { return window }
            let window = NotificationReplayWindow()
            windows[route.name] = window
            return window
        }
    }

    private static func namesUnknownKey(_ outcome: Result<VerifyBody.Records, VerifyBody.Problem>) -> Bool {
        guard case .success(let records) = outcome else { return false }
        return records.tally.byReason.keys.contains { RemoteVerifier.namesUnknownKey(VerificationError.Reason(rawValue: $0)) }
    }

    /// 400 for a path that could be read two ways (``RequestPath``).
    private static func badRequest(_ refusal: RequestPath.Refusal) -> HTTPResponse {
        HTTPResponse(
            status: 400, headers: [("Content-Type", "text/plain")], body: Array((refusal.description + "\n").utf8))
    }

    private static func notFound(_ message: String) -> HTTPResponse {
        HTTPResponse(status: 404, headers: [("Content-Type", "text/plain")], body: Array((message + "\n").utf8))
    }

    private static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        HTTPResponse(status: 405, headers: [("Allow", allowed), ("Content-Type", "text/plain")], body: Array("method not allowed\n".utf8))
    }
}
