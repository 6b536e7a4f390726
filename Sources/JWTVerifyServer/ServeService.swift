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

    /// Answers one request.
    package func handle(_ request: some HTTPRequest) -> HTTPResponse {
        let started = ThroughputClock.now()
        var log = AccessRecord()
        let response = answer(request, log: &log)
        metrics.response(status: response.status)
        if let accessLog {
            log.status = response.status
            log.latency = ThroughputClock.now() - started
            accessLog(log.line(method: request.method, path: request.path))
        }
        return response
    }

    private func answer(_ request: some HTTPRequest, log: inout AccessRecord) -> HTTPResponse {
        let path = request.path
        switch Self.endpoint(path) {
        case ("auth", let rest):
            guard ["GET", "HEAD", "POST"].contains(request.method) else { return Self.methodNotAllowed("GET, HEAD, POST") }
            guard let route = routes.route(forSubpath: rest) else { return Self.notFound("no route for \(path)") }
            log.route = route.name
            return auth(request, route: route, log: &log)
        case ("verify", let rest):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard let route = routes.route(forSubpath: rest) else { return Self.notFound("no route for \(path)") }
            log.route = route.name
            return verifyBody(request.body, route: route, log: &log)
        case ("metrics", ""):
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(metrics.exposition(routes: routes.routes.values.sorted { $0.name < $1.name }.map(\.metricsState)).utf8))
        case ("healthz", ""):
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ok\n".utf8))
        case ("ready", ""):
            let waiting = routes.routes.values.filter { !$0.isReady }.map(\.name).sorted()
            return waiting.isEmpty
                ? HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ready\n".utf8))
                : HTTPResponse(
                    status: 503, headers: [("Content-Type", "text/plain")], body: Array("no keys yet for: \(waiting.joined(separator: ", "))\n".utf8))
        default:
            return Self.notFound("unknown path \(path)")
        }
    }

    /// The first path segment and what follows it (`/auth/ios/x` → ("auth", "ios/x")).
    static func endpoint(_ path: String) -> (Substring, Substring) {
        var rest = path.drop(while: { $0 == "/" })
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        guard let slash = rest.firstIndex(of: "/") else { return (rest, "") }
        return (rest[..<slash], rest[rest.index(after: slash)...])
    }

    /// `/auth`: the gateway check.
    private func auth(_ request: some HTTPRequest, route: ServeRoute, log: inout AccessRecord) -> HTTPResponse {
        let options = route.configuration
        let answer = withToken(request, options) { token -> GatewayAnswer in
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
            let started = ThroughputClock.now()
            let result = route.evaluate(bytes)
            let seconds = ThroughputClock.now() - started
            let reason: VerificationError.Reason? = if case .failure(let error) = result { error.reason } else { nil }
            metrics.verification(route: route.name, reason: reason, seconds: seconds)
            log.reason = reason?.rawValue
            if accessLog != nil { log.fingerprint = SHA256Digest(hashing: bytes) }
            return GatewayAnswer.verdict(result, claimHeaders: options.claimHeaders, realm: options.realm)
        }
        return HTTPResponse(status: answer.status, headers: answer.headers)
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

    private static func namesUnknownKey(_ outcome: Result<VerifyBody.Records, VerifyBody.Problem>) -> Bool {
        guard case .success(let records) = outcome else { return false }
        return records.tally.byReason[VerificationError.Reason.unknownKeyID.rawValue] != nil
    }

    private static func notFound(_ message: String) -> HTTPResponse {
        HTTPResponse(status: 404, headers: [("Content-Type", "text/plain")], body: Array((message + "\n").utf8))
    }

    private static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        HTTPResponse(status: 405, headers: [("Allow", allowed), ("Content-Type", "text/plain")], body: Array("method not allowed\n".utf8))
    }
}

/// One `--access-log` line: never the token, only its SHA-256 fingerprint.
private struct AccessRecord {
    var route: String?
    var status = 0
    var reason: String?
    var latency = 0.0
    var fingerprint: SHA256Digest?

    func line(method: String, path: String) -> String {
        var text = OutputText()
        text.beginObject()
        text.key("time")
        text.number((VerificationPolicy.systemClock() * 1000).rounded() / 1000)
        text.key("method")
        text.string(method)
        text.key("path")
        text.string(path)
        text.key("route")
        if let route { text.string(route) } else { text.null() }
        text.key("status")
        text.integer(status)
        text.key("reason")
        if let reason { text.string(reason) } else { text.null() }
        text.key("latency_us")
        text.number((latency * 1e7).rounded() / 10)
        text.key("fingerprint")
        if let fingerprint { text.hexString(fingerprint) } else { text.null() }
        text.endObject()
        text.newline()
        return text.string
    }
}

/// Monotonic seconds.
package enum ThroughputClock {
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
