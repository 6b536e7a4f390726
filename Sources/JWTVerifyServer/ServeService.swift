package import JWTVerify
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
    /// Each route's notifications seen lately (by the route name's bytes, so a reload keeps them).
    private let windows = Mutex<[[UInt8]: NotificationReplayWindow]>([:])
    /// Where each route's window is kept (`--state-dir`); `nil`: in memory, forgotten at exit.
    private let stateDirectory: String?
    /// Where access-log lines go (`--access-log`), if anywhere.
    private let accessLog: (@Sendable (String) -> Void)?
    /// The store several replicas share (`--replay-store`): notifications' IDs are recorded there
    /// instead of in the windows, and `/metrics` says whether it answers. (The routes' DPoP
    /// proofs go there through their verifiers' ``StoreDPoPRecorder``.)
    package let replayStore: (any ReplayStore)?

    private init(
        routes: ServeRoutes, accessLog: (@Sendable (String) -> Void)?, windowsIn stateDirectory: String?,
        replayStore: (any ReplayStore)?
    ) {
        self.current = Mutex(routes)
        self.accessLog = accessLog
        self.stateDirectory = stateDirectory
        self.replayStore = replayStore
    }

    /// A service answering with `routes`; `accessLog` receives one JSON line per request. Its
    /// notification windows are in memory (a restart forgets them), or `replayStore` when given.
    package convenience init(
        routes: ServeRoutes, accessLog: (@Sendable (String) -> Void)? = nil, replayStore: (any ReplayStore)? = nil
    ) {
        self.init(routes: routes, accessLog: accessLog, windowsIn: nil, replayStore: replayStore)
    }

    /// A service whose notification routes keep their windows in `stateDirectory` (an existing
    /// folder), one file each (``ServeStateDirectory``), loaded now.
    ///
    /// - Throws: the first window file that cannot be used (``openWindows(for:)``).
    package convenience init(
        routes: ServeRoutes, accessLog: (@Sendable (String) -> Void)? = nil, stateDirectory: String,
        replayStore: (any ReplayStore)? = nil
    ) throws(NotificationWindowFileError) {
        self.init(routes: routes, accessLog: accessLog, windowsIn: stateDirectory, replayStore: replayStore)
        try openWindows(for: routes)
    }

    /// Loads the window of each notification route of `routes` that has none yet, from the state
    /// directory (a no-op in memory): at start, and before a reload's routes replace the old
    /// ones, so that a file that cannot be used fails the start or the reload, not a notification.
    package func openWindows(for routes: ServeRoutes) throws(NotificationWindowFileError) {
        guard stateDirectory != nil, replayStore == nil else { return }
        let named = routes.routes.values.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        for route in named where route.receivesNotifications {
            _ = try replayWindow(for: route).get()
        }
    }

    /// The routes now.
    package var routes: ServeRoutes { current.withLock { $0 } }

    /// Replaces the routes (a reload).
    package func replace(_ routes: ServeRoutes) { current.withLock { $0 = routes } }

    /// Answers one request at once: an `/auth` request is verified alone, through the same
    /// gathering and flush as the server's, and a key wait is waited for on this thread (for tests
    /// and in-process callers).
    package func handle(_ request: some HTTPRequest) -> HTTPResponse {
        let gathering = AuthGathering()
        let ticket = UnsafeMutableRawPointer(bitPattern: 1)!
        var answer = HTTPResponse(status: 500)
        switch respond(to: request, gathering: gathering, ticket: ticket) {
        case .answer(let response): return response
        case .waiting(let wait): return wait.answerBlocking()
        case .held: flush(gathering) { _, reply in answer = Self.blocking(reply) }
        }
        return answer
    }

    /// `reply` as an answer, waiting for a key refresh on this thread if it must.
    private static func blocking(_ reply: ServeReply) -> HTTPResponse {
        switch reply {
        case .answer(let response): response
        case .waiting(let wait): wait.answerBlocking()
        case .held: HTTPResponse(status: 500)
        }
    }

    /// Answers `request` now, holds it in `gathering` (``ServeReply/held``: an `/auth` request with
    /// a well-formed token, answered by ``flush(_:deliver:)`` under `ticket`), or asks the transport
    /// to hold it while the key refresh it started runs (``ServeReply/waiting(_:)``: `/verify` and
    /// `/notifications` bodies naming a `kid` a remote key set lacks). A full gathering must be
    /// flushed before this is called again. Never waits on key I/O.
    package func respond(to request: some HTTPRequest, gathering: AuthGathering, ticket: UnsafeMutableRawPointer)
        -> ServeReply
    {
        var log = AccessRecord(started: ThroughputClock.now())
        if accessLog != nil {
            log.method = request.method
            log.path = request.path
        }
        var response: HTTPResponse
        let path = request.path
        switch RequestPath.parse(path) {
        case .failure(let refusal):
            response = Self.noStore(Self.badRequest(refusal))
        case .success(let parsed) where parsed.endpoint == .auth || parsed.endpoint == .extAuthz:
            guard Self.isAuthMethod(request.method) else {
                response = Self.noStore(Self.methodNotAllowed("GET, HEAD, POST"))
                break
            }
            // `/ext-authz/NAME` names every route, the command line's as `default`.
            let name =
                parsed.endpoint == .extAuthz && exactlyEquals(parsed.routeName, ServeRoute.defaultName)
                ? nil : parsed.routeName
            guard let route = routes.route(named: name) else {
                response = Self.noStore(Self.notFound("no route for \(path)"))
                break
            }
            log.route = route.name
            // A gateway check's answer always carries its Cache-Control (``GatewayAnswer``).
            guard let answer = gather(request, route: route, gathering: gathering, ticket: ticket, log: &log) else {
                return .held
            }
            response = HTTPResponse(status: answer.status, headers: answer.headers)
        case .success(let parsed):
            let probe = KeyWaitProbe(mayWait: true)
            let cacheRule = parsed.endpoint == .verify
            response = answer(request, path: parsed, log: &log, probe: probe)
            if cacheRule { response = Self.noStore(response) }
            if let refresh = probe.refresh, let route = probe.route {
                // Held while the refresh runs, then evaluated again (starting none of its own).
                let again = InMemoryRequest(method: request.method, path: request.path, body: request.body)
                let waited = log
                return .waiting(
                    KeyWait(
                        refresh: refresh, deadline: ThroughputClock.now() + route.configuration.refreshWait,
                        retry: { [self] in
                            var log = waited
                            let response = answer(again, path: parsed, log: &log, probe: KeyWaitProbe(mayWait: false))
                            return finish(cacheRule ? Self.noStore(response) : response, log: &log)
                        },
                        expired: { [self] in
                            var log = waited
                            log.reason = VerificationError.Reason.keySetUnavailable.rawValue
                            return finish(
                                cacheRule ? Self.noStore(Self.keysUnavailable) : Self.keysUnavailable, log: &log)
                        }))
            }
        }
        return .answer(finish(response, log: &log))
    }

    /// `response` with `Cache-Control: no-store`: every answer of `/auth…`, `/ext-authz/…` and
    /// `/verify…` but a gateway check's, which carries its own (``GatewayAnswer``), and every 400
    /// for a path (it may have been one of those).
    private static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.append((CacheRule.header, CacheRule.noStore))
        return response
    }

    /// `/verify` and `/notifications` while no keys can be had: 503, retry later.
    private static let keysUnavailable = HTTPResponse(
        status: 503, headers: [("Content-Type", "application/json"), ("Retry-After", "5")],
        body: Array(#"{"error":"jwks_unavailable"}"#.utf8) + [10])

    /// Verifies every request `gathering` holds, one batch per route, and hands each answer to
    /// `deliver` with its ticket, in arrival order; the gathering is empty afterwards. A request
    /// whose token names a `kid` a remote key set lacks is handed over as a ``KeyWait`` on the
    /// refresh it started (none starts within the refresh cooldown: it is answered `unknown_kid`).
    package func flush(_ gathering: AuthGathering, deliver: (UnsafeMutableRawPointer, ServeReply) -> Void) {
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
            for index in next..<count where gathering.entries[index].route === route {
                gathering.positions.append(index)
            }
            if !sameRoute {
                gathering.routeTokens.removeAll()
                for index in gathering.positions { gathering.routeTokens.append(from: gathering.tokens, at: index) }
            }
            let batch = sameRoute ? gathering.tokens : gathering.routeTokens
            let options = route.configuration
            let now = options.cacheMaxAge == nil ? 0 : options.now
            let started = ThroughputClock.now()
            let probe = KeyWaitProbe(mayWait: true)
            // A request that came as DPoP brings its proof; the others none (the pipeline then
            // refuses a token bound to a key).
            let proofs: ((Int) -> DPoPRequest?)? =
                gathering.positions.contains { gathering.entries[$0].dpop != nil }
                ? { gathering.entries[gathering.positions[$0]].dpop } : nil
            route.evaluate(batch, probe: probe, proofs: proofs) { position, result, judge in
                let index = gathering.positions[position]
                gathering.answers[index] = GatewayAnswer.verdict(
                    result, claimHeaders: options.claimHeaders, realm: options.realm, cacheMaxAge: options.cacheMaxAge,
                    now: now, scope: judge.challengeScope, scheme: gathering.entries[index].scheme(judge))
                gathering.entries[index].reason = if case .failure(let error) = result { error.reason } else { nil }
            }
            if let refresh = probe.refresh {
                for position in gathering.positions.indices
                where gathering.entries[gathering.positions[position]].reason == .unknownKeyID {
                    let index = gathering.positions[position]
                    gathering.entries[index].wait = (
                        refresh, batch.token(at: position), batch.nonce(at: position), gathering.entries[index].dpop
                    )
                }
            }
            let seconds = (ThroughputClock.now() - started) / Double(batch.count)
            // A request held for a key refresh is counted once, when it is verified again.
            metrics.batch(route: route.name, count: batch.count, secondsEach: seconds) {
                gathering.entries[gathering.positions[$0]].wait == nil
            } reason: {
                gathering.entries[gathering.positions[$0]].reason
            }
        }
        for index in 0..<count {
            let entry = gathering.entries[index]
            if let (refresh, token, nonce, dpop) = entry.wait {
                deliver(
                    entry.ticket,
                    .waiting(
                        authWait(refresh, token: token, nonce: nonce, dpop: dpop, route: entry.route, log: entry.log)))
                continue
            }
            var log = entry.log
            log.reason = entry.reason?.rawValue
            let answer = gathering.answers[index]!
            deliver(
                entry.ticket, .answer(finish(HTTPResponse(status: answer.status, headers: answer.headers), log: &log)))
        }
    }

    /// The wait of an `/auth` request for the refresh its token's unknown `kid` started: then its
    /// token is verified again alone over the keys at hand, or at the deadline `jwks_unavailable`.
    private func authWait(
        _ refresh: KeyRefresh, token: [UInt8], nonce: [UInt8]?, dpop: DPoPRequest?, route: ServeRoute,
        log: AccessRecord
    ) -> KeyWait {
        let options = route.configuration
        return KeyWait(
            refresh: refresh, deadline: ThroughputClock.now() + options.refreshWait,
            retry: { [self] in
                var batch = TokenBatch()
                batch.append(token, nonce: nonce)
                var answer = GatewayAnswer.rejected(.keySetUnavailable, realm: options.realm)
                var reason: VerificationError.Reason? = .keySetUnavailable
                let started = ThroughputClock.now()
                let entry = AuthGathering.Entry(
                    route: route, ticket: UnsafeMutableRawPointer(bitPattern: 1)!, log: log, dpop: dpop)
                route.evaluate(batch, probe: KeyWaitProbe(mayWait: false), proofs: dpop.map { dpop in { _ in dpop } }) {
                    _, result, judge in
                    answer = GatewayAnswer.verdict(
                        result, claimHeaders: options.claimHeaders, realm: options.realm, scope: judge.challengeScope,
                        scheme: entry.scheme(judge))
                    reason = if case .failure(let error) = result { error.reason } else { nil }
                }
                metrics.verification(route: route.name, reason: reason, seconds: ThroughputClock.now() - started)
                var log = log
                log.reason = reason?.rawValue
                return finish(HTTPResponse(status: answer.status, headers: answer.headers), log: &log)
            },
            expired: { [self] in
                metrics.verification(route: route.name, reason: .keySetUnavailable, seconds: options.refreshWait)
                let answer = GatewayAnswer.rejected(.keySetUnavailable, realm: options.realm)
                var log = log
                log.reason = VerificationError.Reason.keySetUnavailable.rawValue
                return finish(HTTPResponse(status: answer.status, headers: answer.headers), log: &log)
            })
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

    /// Every request but an `/auth` one, its path parsed (``RequestPath``). A body naming a `kid`
    /// a remote key set lacks leaves the refresh it started in `probe` (its answer is then
    /// discarded, and the request waits).
    private func answer(
        _ request: some HTTPRequest, path parsed: RequestPath, log: inout AccessRecord, probe: KeyWaitProbe
    ) -> HTTPResponse {
        let path = request.path
        switch (parsed.endpoint, parsed.routeName) {
        case (.verify?, let name):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard let route = routes.route(named: name) else { return Self.notFound("no route for \(path)") }
            log.route = route.name
            return verifyBody(request.body, route: route, log: &log, probe: probe)
        case (.notifications?, let name), (.appstore?, let name):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard let route = routes.route(named: name) else { return Self.notFound("no route for \(path)") }
            guard route.receivesNotifications else {
                return Self.notFound(
                    "route \(route.name) receives no notifications (--profile apple-notification or app-store)")
            }
            log.route = route.name
            return notification(request.body, route: route, log: &log, probe: probe)
        case (.retention?, let name):
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            guard let route = routes.route(named: name) else { return Self.notFound("no route for \(path)") }
            guard route.receivesRealtimeRequests else {
                return Self.notFound("route \(route.name) receives no realtime requests (--profile app-store)")
            }
            log.route = route.name
            return realtimeRequest(request.body, route: route, log: &log, probe: probe)
        case (.metrics?, nil):
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(
                    (metrics.exposition(
                        routes: routes.routes.values.flatMap(\.leaves).sorted { $0.name < $1.name }.map(\.metricsState)
                    ) + (replayStore.map(ServeMetrics.replayStoreExposition) ?? ""))
                    .utf8))
        case (.healthz?, nil):
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ok\n".utf8))
        case (.ready?, nil):
            let waiting = routes.routes.values.filter { !$0.isReady }.map(\.name).sorted()
            return waiting.isEmpty
                ? HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ready\n".utf8))
                : HTTPResponse(
                    status: 503, headers: [("Content-Type", "text/plain")],
                    body: Array("no keys yet for: \(waiting.joined(separator: ", "))\n".utf8))
        default:
            return Self.notFound("unknown path \(path)")
        }
    }

    /// `/auth` takes GET, HEAD and POST.
    private static func isAuthMethod(_ method: String) -> Bool {
        method == "GET" || method == "HEAD" || method == "POST"
    }

    /// `/auth`: the gateway check. A well-formed token is held in `gathering` (`nil`); no token
    /// or a malformed one is answered at once.
    private func gather(
        _ request: some HTTPRequest, route: ServeRoute, gathering: AuthGathering, ticket: UnsafeMutableRawPointer,
        log: inout AccessRecord
    ) -> GatewayAnswer? {
        let options = route.configuration
        switch gatherDPoP(request, route: route, gathering: gathering, ticket: ticket, log: &log) {
        case .notDPoP: break
        case .held: return nil
        case .answer(let answer): return answer
        }
        return withToken(request, options) { credential -> GatewayAnswer? in
            let value: UnsafeRawBufferPointer
            let parsed: BearerCredential.Parsed
            switch credential {
            case .none:
                metrics.missingToken(route: route.name)
                return GatewayAnswer.noToken(realm: options.realm)
            case .ambiguous:
                log.reason = GatewayAnswer.invalidRequest
                return GatewayAnswer.ambiguous(realm: options.realm)
            case .found(let bytes, let what): (value, parsed) = (bytes, what)
            }
            guard case .token(let range) = parsed else {
                log.reason = VerificationError.Reason.malformed.rawValue
                metrics.verification(route: route.name, reason: .malformed, seconds: 0)
                return GatewayAnswer.rejected(.malformed, realm: options.realm)
            }
            let bytes = UnsafeRawBufferPointer(rebasing: value[range])
            if accessLog != nil { log.fingerprint = SHA256Digest(hashing: bytes) }
            guard route.gathers else { return verifyAlone(bytes, route: route, gathering: gathering, log: &log) }
            gathering.hold(bytes, route: route, ticket: ticket, log: log)
            return nil
        }
    }

    /// What ``gatherDPoP(_:route:gathering:ticket:log:)`` did.
    private enum DPoPGathering {
        /// The request presents no `Authorization: DPoP` the route takes: read it as any other.
        case notDPoP
        /// Held in the gathering, with its proof.
        case held
        /// Answered at once.
        case answer(GatewayAnswer)
    }

    /// `/auth` with `Authorization: DPoP <token>` on a route that takes proofs (RFC 9449 §7.1):
    /// exactly one `DPoP` header, the client's request from the forward-auth headers
    /// (``ForwardedRequest``), and no token elsewhere; then the token is held with its proof.
    private func gatherDPoP(
        _ request: some HTTPRequest, route: ServeRoute, gathering: AuthGathering, ticket: UnsafeMutableRawPointer,
        log: inout AccessRecord
    ) -> DPoPGathering {
        guard let algs = route.dpopAlgorithms, request.headerCount("Authorization") == 1 else { return .notDPoP }
        let options = route.configuration
        return request.withHeader("Authorization") { value -> DPoPGathering in
            guard let value else { return .notDPoP }
            let parsed = BearerCredential.parse(dpopAuthorization: value)
            if parsed == .absent { return .notDPoP }
            let elsewhere =
                options.tokenHeader.map { name in request.withHeader(name) { Self.holdsToken($0) } } == true
                || options.tokenCookie.map { name in request.withCookie(name) { Self.holdsToken($0) } } == true
            if elsewhere {
                log.reason = GatewayAnswer.invalidRequest
                return .answer(GatewayAnswer.ambiguous(realm: options.realm))
            }
            guard case .token(let range) = parsed else {
                log.reason = VerificationError.Reason.malformed.rawValue
                metrics.verification(route: route.name, reason: .malformed, seconds: 0)
                return .answer(GatewayAnswer.rejected(.malformed, realm: options.realm, scheme: .dpop(algs: algs)))
            }
            guard request.headerCount("DPoP") == 1 else {
                log.reason = GatewayAnswer.invalidRequest
                return .answer(
                    GatewayAnswer.invalidDPoPRequest(
                        "a DPoP token needs exactly one DPoP header", realm: options.realm, algs: algs))
            }
            let forwarded: ForwardedRequest
            switch ForwardedRequest.read(request) {
            case .success(let read): forwarded = read
            case .failure(let refusal):
                log.reason = GatewayAnswer.invalidRequest
                return .answer(GatewayAnswer.invalidDPoPRequest(refusal.description, realm: options.realm, algs: algs))
            }
            let proof = request.withHeader("DPoP") { $0.map { String(decoding: $0, as: UTF8.self) } } ?? ""
            let dpop = DPoPRequest(proof: proof, method: forwarded.method, uri: forwarded.uri)
            let bytes = UnsafeRawBufferPointer(rebasing: value[range])
            if accessLog != nil { log.fingerprint = SHA256Digest(hashing: bytes) }
            guard route.gathers else {
                return .answer(verifyAlone(bytes, route: route, gathering: gathering, log: &log, dpop: dpop))
            }
            gathering.hold(bytes, route: route, ticket: ticket, log: log, dpop: dpop)
            return .held
        }
    }

    /// The answer for one token of a route that does not gather: the same batch stages for a
    /// batch of one, at once.
    private func verifyAlone(
        _ token: UnsafeRawBufferPointer, route: ServeRoute, gathering: AuthGathering, log: inout AccessRecord,
        dpop: DPoPRequest? = nil
    ) -> GatewayAnswer {
        gathering.alone.removeAll()
        AuthGathering.append(token, nonce: route.configuration.nonce, to: &gathering.alone)
        let options = route.configuration
        var answer = GatewayAnswer.rejected(.keySetUnavailable, realm: options.realm)
        var reason: VerificationError.Reason? = .keySetUnavailable
        let started = ThroughputClock.now()
        let now = options.cacheMaxAge == nil ? 0 : options.now
        let entry = AuthGathering.Entry(
            route: route, ticket: UnsafeMutableRawPointer(bitPattern: 1)!, log: log, dpop: dpop)
        route.evaluate(gathering.alone, proofs: dpop.map { dpop in { _ in dpop } }) { _, result, judge in
            answer = GatewayAnswer.verdict(
                result, claimHeaders: options.claimHeaders, realm: options.realm, cacheMaxAge: options.cacheMaxAge,
                now: now, scope: judge.challengeScope, scheme: entry.scheme(judge))
            reason = if case .failure(let error) = result { error.reason } else { nil }
        }
        metrics.batch(route: route.name, count: 1, secondsEach: ThroughputClock.now() - started) { _ in reason }
        log.reason = reason?.rawValue
        return answer
    }

    /// A request's credential, as ``withToken(_:_:_:)`` finds it.
    private enum Credential {
        /// No token anywhere the route looks.
        case none
        /// More than one: refused, never one of them picked.
        case ambiguous
        /// One token: the value holding it (lent for the call), and what it holds.
        case found(UnsafeRawBufferPointer, BearerCredential.Parsed)
    }

    /// Where a request's token is: `Authorization: Bearer`, else the route's header, else its
    /// cookie. Two `Authorization` headers, two of the route's header or cookie (or two `Cookie`
    /// headers where the route takes a cookie), or a token in more than one of those places is
    /// ``Credential/ambiguous``.
    private func withToken<R>(
        _ request: some HTTPRequest, _ options: RouteConfiguration, _ body: (Credential) -> R
    ) -> R {
        let authorizations = request.headerCount("Authorization")
        guard authorizations <= 1 else { return body(.ambiguous) }
        // Whether the route's other places hold something (more than one of a name: ambiguous).
        var inHeader = false
        var inCookie = false
        if let name = options.tokenHeader {
            switch request.headerCount(name) {
            case 0: break
            case 1: inHeader = request.withHeader(name) { Self.holdsToken($0) }
            default: return body(.ambiguous)
            }
        }
        if let name = options.tokenCookie {
            // libmicrohttpd reads cookies from the first `Cookie` header only (a client sends one,
            // RFC 6265 §5.4): a token cookie in another would be one serve never saw.
            guard request.headerCount("Cookie") <= 1 else { return body(.ambiguous) }
            switch request.cookieCount(name) {
            case 0: break
            case 1: inCookie = request.withCookie(name) { Self.holdsToken($0) }
            default: return body(.ambiguous)
            }
        }
        if authorizations == 1 {
            let answer = request.withHeader("Authorization") { value -> R? in
                guard let value else { return nil }
                let parsed = BearerCredential.parse(authorization: value)
                guard parsed != .absent else { return nil }
                return inHeader || inCookie ? body(.ambiguous) : body(.found(value, parsed))
            }
            if let answer { return answer }
        }
        if inHeader && inCookie { return body(.ambiguous) }
        if inHeader, let name = options.tokenHeader {
            return request.withHeader(name) { Self.lend($0, body) }
        }
        if inCookie, let name = options.tokenCookie {
            return request.withCookie(name) { Self.lend($0, body) }
        }
        return body(.none)
    }

    /// Whether a token header's or cookie's value holds something (a token or a malformed one).
    private static func holdsToken(_ value: UnsafeRawBufferPointer?) -> Bool {
        value.map { BearerCredential.parse(plain: $0) != .absent } ?? false
    }

    /// `body` with the token a token header or cookie holds.
    private static func lend<R>(_ value: UnsafeRawBufferPointer?, _ body: (Credential) -> R) -> R {
        guard let value else { return body(.none) }
        return body(.found(value, BearerCredential.parse(plain: value)))
    }

    /// `/verify`: the body's requests through the route's verifier, answered with `verify`'s records.
    /// A line naming a `kid` a remote key set lacks makes the request wait for at most one
    /// refresh, as `/auth` does (see `probe`), and then the whole body is evaluated again.
    private func verifyBody(_ body: [UInt8], route: ServeRoute, log: inout AccessRecord, probe: KeyWaitProbe)
        -> HTTPResponse
    {
        let started = ThroughputClock.now()
        let evaluated: Result<Result<VerifyBody.Records, VerifyBody.Problem>, VerificationError>
        if route.issuerEntries.isEmpty {
            evaluated = route.withVerifier(probe: probe, namesUnknownKey: Self.namesUnknownKey) { verifier in
                VerifyBody.evaluate(
                    body,
                    with: RequestLineEvaluator(
                        verifier: verifier, defaultNonce: route.configuration.nonce, time: route.configuration.time))
            }
        } else {
            evaluated = VerifyBody.evaluate(body, byIssuer: route, probe: probe)
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
        case .success where probe.refresh != nil:
            return HTTPResponse(status: 503)  // discarded: the request waits for the refresh
        case .success(let records):
            let seconds = (ThroughputClock.now() - started) / Double(max(1, records.tally.total))
            let counts: [(String?, Int)] =
                [(nil, records.tally.valid)] + records.tally.byReason.map { ($0.key, $0.value) }
            for (reason, count) in counts {
                for _ in 0..<count {
                    metrics.verification(
                        route: route.name, reason: reason.map(VerificationError.Reason.init(rawValue:)),
                        seconds: seconds)
                }
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: records.output)
        }
    }

    /// `/notifications`: Apple's envelope read, its JWS through the route's pipeline as a batch of
    /// one, and its ID looked up in the route's replay window.
    private func notification(_ body: [UInt8], route: ServeRoute, log: inout AccessRecord, probe: KeyWaitProbe)
        -> HTTPResponse
    {
        let time: Double =
            if case .fixed(let fixed) = route.configuration.time { fixed } else { VerificationPolicy.systemClock() }
        let started = ThroughputClock.now()
        var verified = false
        let verify = { (jws: UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError> in
            verified = true
            var batch = TokenBatch()
            batch.append(bytes: jws, nonce: nil)
            var result: Result<VerifiedToken, VerificationError> = .failure(VerificationError(.keySetUnavailable))
            route.evaluate(batch, probe: probe) { _, outcome, _ in result = outcome }
            return result
        }
        let received: Result<ReceivedNotification, NotificationRejection>
        if let replayStore {
            // Kept as long as a window keeps an ID: Apple's retry horizon.
            let milliseconds = Int64(NotificationReplayWindow.defaultRetention * 1000)
            received = body.withUnsafeBytes { bytes in
                NotificationReceiver.receive(
                    bytes,
                    sight: { id in
                        replayStore.recordOnce(
                            ReplayStoreKey.notification(route: route.name, id: id), milliseconds: milliseconds)
                    }, verify: verify)
            }
        } else {
            let window: NotificationReplayWindow
            switch replayWindow(for: route) {
            case .success(let opened): window = opened
            case .failure(let error):
                log.reason = error.reason.rawValue
                return NotificationAnswer.notRecorded(error)
            }
            received = body.withUnsafeBytes { bytes in
                NotificationReceiver.receive(bytes, window: window, at: time, verify: verify)
            }
        }
        let reason: String? = if case .failure(let rejection) = received { rejection.code } else { nil }
        // A body held for a key refresh is counted once, when it is evaluated again.
        if verified && probe.refresh == nil {
            metrics.verification(
                route: route.name, reason: reason.map(VerificationError.Reason.init(rawValue:)),
                seconds: ThroughputClock.now() - started)
        }
        log.reason = reason
        return NotificationAnswer.answer(received, rules: route.policy.rules)
    }

    /// `/retention`: Apple's realtime request body read, its JWS through the route's pipeline as a
    /// batch of one, answered with the typed request (``RetentionAnswer``).
    private func realtimeRequest(_ body: [UInt8], route: ServeRoute, log: inout AccessRecord, probe: KeyWaitProbe)
        -> HTTPResponse
    {
        let started = ThroughputClock.now()
        let response = body.withUnsafeBytes { bytes in
            RetentionAnswer.withSignedPayload(bytes) { jws in
                var batch = TokenBatch()
                batch.append(bytes: jws, nonce: nil)
                var result: Result<VerifiedToken, VerificationError> = .failure(VerificationError(.keySetUnavailable))
                route.evaluate(batch, probe: probe) { _, outcome, _ in result = outcome }
                let (response, reason) = RetentionAnswer.answer(result, rules: route.policy.rules)
                metrics.verification(route: route.name, reason: reason, seconds: ThroughputClock.now() - started)
                log.reason = reason?.rawValue
                return response
            }
        }
        if response.status == 400 { log.reason = RetentionAnswer.notRequestCode }
        return response
    }

    /// The replay window of a route's notifications, kept by name across reloads: in memory, or
    /// loaded from its file in the state directory the first time.
    private func replayWindow(for route: ServeRoute) -> Result<NotificationReplayWindow, NotificationWindowFileError> {
        let name = Array(route.name.utf8)
        return windows.withLock { windows in
            if let window = windows[name] { return .success(window) }
            let window: NotificationReplayWindow
            if let stateDirectory {
                let path = ServeStateDirectory.notificationWindowPath(route: route.name, in: stateDirectory)
                do throws(NotificationWindowFileError) {
                    window = try NotificationReplayWindow(persistingTo: path)
                } catch {
                    return .failure(error)
                }
            } else {
                window = NotificationReplayWindow()
            }
            windows[name] = window
            return .success(window)
        }
    }

    private static func namesUnknownKey(_ outcome: Result<VerifyBody.Records, VerifyBody.Problem>) -> Bool {
        guard case .success(let records) = outcome else { return false }
        return records.tally.byReason.keys.contains {
            RemoteVerifier.namesUnknownKey(VerificationError.Reason(rawValue: $0))
        }
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
        HTTPResponse(
            status: 405, headers: [("Allow", allowed), ("Content-Type", "text/plain")],
            body: Array("method not allowed\n".utf8))
    }
}
