package import JWTVerify

#if canImport(Glibc)
    import Glibc
#endif

/// How one route finds tokens and answers for them, resolved once from its options.
package struct RouteConfiguration: Sendable {
    /// The route's name: `default` for the command line's, else its `--config` name.
    package var name: String
    /// Claims sent as headers on `/auth` success.
    package var claimHeaders: [GatewayAnswer.ClaimHeader]
    /// Other places to find the token: a request header, a cookie.
    package var tokenHeader: String?
    package var tokenCookie: String?
    /// The realm of `WWW-Authenticate` challenges.
    package var realm: String?
    /// The raw nonce checked for every `/auth` token and every `/verify` line without its own.
    package var nonce: String?
    /// When tokens are evaluated (`--now`, or the clock).
    package var time: EvaluationTime
    /// Longest wait, in seconds, of a request for the key refresh its unknown `kid` started
    /// (`--refresh-wait`); the request is then answered `jwks_unavailable` while the fetch goes on.
    package var refreshWait: Double = 0.25
    /// How long a gateway may keep a 200 `/auth` answer (`--cache-control-max-age`), never past
    /// the token's `exp`; `nil`: every answer is `no-store` (``CacheRule``).
    package var cacheMaxAge: Int?

    package init(
        name: String, claimHeaders: [GatewayAnswer.ClaimHeader] = [], tokenHeader: String? = nil,
        tokenCookie: String? = nil,
        realm: String? = nil, nonce: String? = nil, time: EvaluationTime = .clock, cacheMaxAge: Int? = nil
    ) {
        self.name = name
        self.claimHeaders = claimHeaders
        self.tokenHeader = tokenHeader
        self.tokenCookie = tokenCookie
        self.realm = realm
        self.nonce = nonce
        self.time = time
        self.cacheMaxAge = cacheMaxAge
    }

    /// The time a cached answer's age counts from: `--now` when given, else the clock.
    package var now: Double {
        if case .fixed(let fixed) = time { return fixed }
        return VerificationPolicy.systemClock()
    }
}

/// One route of `serve`, ready: its configuration and its verifier (over key files, or over one
/// remote key set that keeps itself current).
package final class ServeRoute: Sendable {
    /// The route the command line describes, behind `/auth` and `/verify`.
    package static let defaultName = "default"

    /// Where a route's keys come from: its verifier, and for key files what `/metrics` shows of them.
    package struct Keys: Sendable {
        /// The verifier: over key files, or over one remote key set.
        package let verifier: AnyVerifier
        /// Key files, loaded at start and on SIGHUP: when they were loaded and how many usable
        /// keys they hold (`nil` for a remote set).
        package let files: (loadedAt: Double, count: Int)?

        /// Key files: the verifier over them, when they were loaded and how many usable keys they hold.
        package static func files(_ verifier: Verifier, loadedAt: Double, count: Int) -> Keys {
            Keys(verifier: .local(verifier), files: (loadedAt, count))
        }

        /// One remote key set.
        package static func remote(_ verifier: RemoteVerifier) -> Keys { Keys(verifier: .remote(verifier), files: nil) }
    }

    package let configuration: RouteConfiguration
    /// The route's keys; `nil` for a route with several issuers, whose entries have theirs.
    private let keys: Keys?
    /// A route with several issuers (``init(configuration:issuers:)``): its entries, in order, and
    /// each by the exact bytes of the issuers its policy accepts.
    package let issuerEntries: [ServeRoute]
    private let issuerIndex: [ExactBytes: ServeRoute]
    /// Whether `/auth` holds this route's requests to verify them together: when its keys gain
    /// from batches (``Verifier/gainsFromBatches``; a remote set always, its keys change).
    package let gathers: Bool
    /// The scopes a refusal's Bearer challenge names: what the route's rules require
    /// (``ProviderRules/challengeScope``), found once.
    package let challengeScope: [String]

    package var name: String { configuration.name }

    /// The proof algorithms of a route that takes DPoP proofs (``VerificationPolicy/dpop``, any
    /// issuer entry's), space-separated for a challenge's `algs`; `nil` when proofs are off, and
    /// `Authorization: DPoP` is then no credential the route takes.
    package var dpopAlgorithms: String? {
        let names = Set(leaves.flatMap { $0.policy.dpop.mode == .off ? [] : $0.policy.dpop.algorithms.map(\.name) })
        return names.isEmpty ? nil : names.sorted().joined(separator: " ")
    }

    /// Whether the route can verify: key files are loaded when the route is; a remote set once it
    /// holds keys (fetched, or from its snapshot).
    package var hasKeys: Bool { leaves.allSatisfy { $0.keys?.verifier.hasKeys ?? false } }

    package init(configuration: RouteConfiguration, keys: Keys) {
        self.configuration = configuration
        self.keys = keys
        self.issuerEntries = []
        self.issuerIndex = [:]
        challengeScope = keys.verifier.policy.rules.challengeScope
        switch keys.verifier {
        case .local(let verifier): gathers = verifier.gainsFromBatches
        case .remote: gathers = true
        }
    }

    /// A route with several issuers behind one path (`"issuers"` in `--config`): each token goes
    /// to the one entry whose policy accepts its unverified `iss`, byte for byte, and is verified
    /// there whole; never to another entry. A token whose `iss` no entry accepts (or that has none
    /// to read) is refused `issuer_mismatch` before any key is chosen.
    ///
    /// - Precondition: at least one entry, none with several issuers itself, each accepting
    ///   issuers no other entry accepts (``ServeRoutes`` callers check this first).
    package init(configuration: RouteConfiguration, issuers entries: [ServeRoute]) {
        precondition(!entries.isEmpty && entries.allSatisfy { $0.keys != nil }, "issuer entries are plain routes")
        self.configuration = configuration
        self.keys = nil
        self.issuerEntries = entries
        var index: [ExactBytes: ServeRoute] = [:]
        for entry in entries {
            for issuer in entry.policy.issuers ?? [] {
                precondition(index.updateValue(entry, forKey: ExactBytes(issuer)) == nil, "an issuer in two entries")
            }
        }
        self.issuerIndex = index
        self.challengeScope = []
        self.gathers = entries.contains { $0.gathers }
    }

    /// The routes that verify: this one, or its issuer entries.
    package var leaves: [ServeRoute] { keys == nil ? issuerEntries : [self] }

    /// The issuer entry for `token`, by its unverified `iss` (this route itself when it has one
    /// issuer's keys); `nil` when no entry accepts it.
    package func entry(for token: UnsafeRawBufferPointer) -> ServeRoute? {
        guard keys == nil else { return self }
        guard let issuer = UnverifiedPayload.read(token: token)?.claims.issuer else { return nil }
        return issuerIndex[ExactBytes(issuer)]
    }

    /// The refusal of a token no issuer entry accepts.
    package func noIssuerEntry(for token: UnsafeRawBufferPointer) -> VerificationError {
        guard let issuer = UnverifiedPayload.read(token: token)?.claims.issuer else {
            return VerificationError(
                .issuerMismatch, detail: "route \(name) takes tokens by iss, and this one has none")
        }
        return VerificationError(
            .issuerMismatch, detail: "route \(name) has no issuer \(String(reflecting: String(issuer.prefix(100))))")
    }

    /// Runs `attempt` over the verifier of the keys at hand (`jwks_unavailable` while a remote set
    /// has none), never waiting. When `namesUnknownKey` says its outcome names a `kid` a remote set
    /// lacks and `probe` may wait, the one rate-limited refresh is started (or joined) and left in
    /// `probe`, for the transport to hold the request on.
    package func withVerifier<T>(
        probe: KeyWaitProbe?, namesUnknownKey: (T) -> Bool, _ attempt: (Verifier) -> T
    ) -> Result<T, VerificationError> {
        guard let keys else { preconditionFailure("a route with several issuers verifies through its entries") }
        switch keys.verifier {
        case .local(let verifier): return .success(attempt(verifier))
        case .remote(let remote):
            let outcome = remote.withCurrentVerifier(
                mayRefresh: probe?.mayWait ?? false, namesUnknownKey: namesUnknownKey, attempt)
            return outcome.map { value, refresh in
                if let refresh {
                    probe?.refresh = refresh
                    probe?.route = self
                }
                return value
            }
        }
    }

    /// Evaluates every token of `batch` (each with its nonce) at the route's time, through the
    /// pipeline's batch stages, handing each result to `body` with its position; never waits.
    /// When a result names a `kid` a remote key set lacks, the refresh it is worth is left in
    /// `probe` (see ``withVerifier(probe:namesUnknownKey:_:)``). `jwks_unavailable` while a remote
    /// set has no keys, for every token.
    package func evaluate(
        _ batch: TokenBatch, probe: KeyWaitProbe? = nil, proofs: ((Int) -> DPoPRequest?)? = nil,
        _ body: (Int, Result<VerifiedToken, VerificationError>, ServeRoute) -> Void
    ) {
        guard keys != nil else { return evaluateByIssuer(batch, probe: probe, proofs: proofs, body) }
        let outcome = withVerifier(
            probe: probe, namesUnknownKey: { $0 },
            { verifier -> Bool in
                var namesUnknownKey = false
                verifier.evaluate(batch, at: configuration.time, tracing: false, proofs: proofs) {
                    index, _, result, _ in
                    if !namesUnknownKey, case .failure(let error) = result, RemoteVerifier.namesUnknownKey(error) {
                        namesUnknownKey = true
                    }
                    body(index, result, self)
                }
                return namesUnknownKey
            })
        if case .failure(let error) = outcome {
            for index in 0..<batch.count { body(index, .failure(error), self) }
        }
    }

    /// ``evaluate(_:probe:_:)`` of a route with several issuers: each entry's tokens as one batch
    /// through it, in the order the entries first appear; tokens no entry accepts refused.
    private func evaluateByIssuer(
        _ batch: TokenBatch, probe: KeyWaitProbe?, proofs: ((Int) -> DPoPRequest?)?,
        _ body: (Int, Result<VerifiedToken, VerificationError>, ServeRoute) -> Void
    ) {
        var groups: [(entry: ServeRoute, positions: [Int], batch: TokenBatch)] = []
        for position in 0..<batch.count {
            let token = batch.token(at: position)
            guard let entry = token.withUnsafeBytes({ entry(for: $0) }) else {
                body(position, .failure(token.withUnsafeBytes { noIssuerEntry(for: $0) }), self)
                continue
            }
            if let group = groups.firstIndex(where: { $0.entry === entry }) {
                groups[group].positions.append(position)
                groups[group].batch.append(token, nonce: batch.nonce(at: position))
            } else {
                var one = TokenBatch()
                one.append(token, nonce: batch.nonce(at: position))
                groups.append((entry, [position], one))
            }
        }
        for group in groups {
            let own = proofs.map { proofs in { (position: Int) in proofs(group.positions[position]) } }
            group.entry.evaluate(group.batch, probe: probe, proofs: own) { position, result, judge in
                body(group.positions[position], result, judge)
            }
        }
    }

    /// `jwks_unavailable` for a request that waited ``RouteConfiguration/refreshWait`` for a
    /// refresh still under way.
    package var refreshStillRunning: VerificationError {
        guard case .remote(let remote)? = keys?.verifier else { return VerificationError(.keySetUnavailable) }
        return RemoteVerifier.refreshStillRunning(remote.keySet, waited: configuration.refreshWait)
    }

    /// The route's policy (a route with several issuers: its first entry's).
    package var policy: VerificationPolicy { leaves[0].keys!.verifier.policy }

    /// Whether `/notifications` takes this route's bodies: Sign in with Apple's notifications or
    /// App Store signed data (never a route with several issuers).
    package var receivesNotifications: Bool { keys != nil && policy.rules.receivesNotifications }

    /// Whether `/retention` takes this route's bodies: App Store signed data, whose kinds include
    /// Retention Messaging realtime requests (never a route with several issuers).
    package var receivesRealtimeRequests: Bool { keys != nil && policy.rules.profile is AppStoreProfile }

    /// Whether the route's policy (any of its entries') requires a raw nonce with every token.
    package var requiresNonce: Bool { leaves.contains { $0.policy.nonceRequirement == .required } }

    /// Whether usable keys are loaded (for every issuer entry).
    package var isReady: Bool { hasKeys }

    /// Starts (or retries) a remote set's due refresh (each issuer entry's); nothing for key files.
    package func refreshIfDue() async {
        for leaf in leaves {
            if case .remote(let remote)? = leaf.keys?.verifier { await remote.keySet.refreshIfDue() }
        }
    }

    /// What `/metrics` shows of this route (of an issuer entry: under the entry's name).
    package var metricsState: ServeMetrics.RouteState {
        guard let keys else { preconditionFailure("a route with several issuers is shown by its entries") }
        switch keys.verifier {
        case .local(let verifier):
            return ServeMetrics.RouteState(
                route: name, keyCount: keys.files?.count ?? 0,
                keyAge: keys.files.map { VerificationPolicy.systemClock() - $0.loadedAt }, keySet: nil,
                cache: verifier.cache?.counters)
        case .remote(let remote):
            let keys = remote.keySet.currentKeys()
            return ServeMetrics.RouteState(
                route: name, keyCount: keys?.keys.filter { $0.unusableReason == nil }.count ?? 0,
                keyAge: remote.keySet.validity.map { VerificationPolicy.systemClock() - $0.fetchedAt },
                keySet: remote.keySet.metrics,
                cache: remote.cache?.counters)
        }
    }
}

/// The routes `serve` answers with: the command line's (`default`) and `--config`'s.
package struct ServeRoutes: Sendable {
    /// Every route, by name.
    package let routes: [String: ServeRoute]
    /// The routes a path may name (`/auth/NAME`), by the name's exact bytes: every route but the
    /// default one, which answers the bare endpoints only.
    private let named: [ExactBytes: ServeRoute]
    private let defaultRoute: ServeRoute?

    package init(routes: [String: ServeRoute]) {
        self.routes = routes
        var named: [ExactBytes: ServeRoute] = [:]
        var defaultRoute: ServeRoute?
        for (name, route) in routes {
            if exactlyEquals(name, ServeRoute.defaultName) {
                defaultRoute = route
            } else {
                named[ExactBytes(name)] = route
            }
        }
        self.named = named
        self.defaultRoute = defaultRoute
    }

    /// The route a request names: the default route for a bare endpoint (`routeName` `nil`), else
    /// the route with exactly that name, never another (`nil`: 404). The default route has no
    /// `/auth/NAME` spelling: `/auth/default` names no route.
    package func route(named routeName: String?) -> ServeRoute? {
        guard let routeName else { return defaultRoute }
        return named[ExactBytes(routeName)]
    }
}
