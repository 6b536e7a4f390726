import Dispatch
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTooling
#if canImport(Glibc)
import Glibc
#endif

/// One route of `serve`, loaded: its verifier (over key files, or over one remote key set that
/// keeps itself current) and how the gateway hands it tokens.
final class ServeRoute: Sendable {
    /// The route the command line describes, behind `/auth` and `/verify`.
    static let defaultName = "default"

    let name: String
    let options: RouteOptions
    private let keys: Keys

    private enum Keys {
        /// Key files, loaded at start and on SIGHUP.
        case files(Verifier, loadedAt: Double, count: Int)
        /// One remote key set.
        case remote(RemoteVerifier)
    }

    /// Loads the route's key files, or its remote key set (snapshot or fetch, waiting at most the
    /// fetch timeout). A remote set still without keys fails when `requireKeys` (a reload, which
    /// then keeps the old route); at start it is retried in the background and `/ready` says when.
    init(name: String, options: RouteOptions, requireKeys: Bool) throws(CommandFailure) {
        self.name = name
        self.options = options
        let cache: VerifiedTokenCache.Configuration? = options.cacheCapacity > 0 ? .init(capacity: options.cacheCapacity) : nil
        if options.keySets.sources.count == 1, case .url(let url) = KeySetSource(parsing: options.keySets.sources[0]) {
            try options.keySets.prepareCacheDirectory()
            let keySet = RemoteKeySet(
                url: url, fetcher: HTTPKeySetFetcher(), policy: options.keySets.policy, snapshotDirectory: options.keySets.cacheDirectory)
            Blocking.run { await keySet.load() }
            if keySet.currentKeys() == nil {
                let message = "route \"\(name)\": no keys from \(url) (\(keySet.lastFailure ?? "not fetched"))"
                if requireKeys { throw CommandFailure(status: .unavailable, message: message) }
                StandardError.write("jwtverify serve: warning: \(message); retrying in the background\n")
            }
            keys = .remote(RemoteVerifier(keySet: keySet, policy: options.policy, cache: cache))
        } else {
            let loaded = try KeySetLoader.load(options.keySets)
            keys = .files(
                Verifier(keys: loaded, policy: options.policy, cache: cache), loadedAt: VerificationPolicy.systemClock(),
                count: loaded.keys.filter { $0.unusableReason == nil }.count)
        }
    }

    /// The verifier over the keys at hand; `jwks_unavailable` while a remote set has none.
    func verifier() -> Result<Verifier, VerificationError> {
        switch keys {
        case .files(let verifier, _, _): return .success(verifier)
        case .remote(let remote):
            do { return .success(try remote.currentVerifier()) } catch { return .failure(error) }
        }
    }

    /// Evaluates one token; an unknown `kid` on a remote set waits for at most one rate-limited
    /// refresh (key rotation), as ``RemoteVerifier/verify(_:nonce:at:)`` does.
    func evaluate(_ token: UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError> {
        let time = options.flags.evaluationTime
        let first = verifier().flatMap { $0.evaluate(token, nonce: options.flags.nonce, at: time) }
        guard case .failure(let error) = first, error.reason == .unknownKeyID, refreshForUnknownKeyID() else { return first }
        return verifier().flatMap { $0.evaluate(token, nonce: options.flags.nonce, at: time) }
    }

    /// For a remote key set: waits for at most one rate-limited refresh after a token named a `kid`
    /// the keys lack; whether new keys came. Always false for key files.
    func refreshForUnknownKeyID() -> Bool {
        guard case .remote(let remote) = keys else { return false }
        let refreshed = Flag()
        Blocking.run { refreshed.set(await remote.keySet.refreshForUnknownKeyID()) }
        return refreshed.value
    }

    /// Whether usable keys are loaded.
    var isReady: Bool {
        switch keys {
        case .files: true
        case .remote(let remote): remote.keySet.currentKeys() != nil
        }
    }

    /// Starts (or retries) a remote set's due refresh; nothing for key files.
    func refreshIfDue() async {
        if case .remote(let remote) = keys { await remote.keySet.refreshIfDue() }
    }

    /// What `/metrics` shows of this route.
    var metricsState: ServeMetrics.RouteState {
        switch keys {
        case .files(let verifier, let loadedAt, let count):
            return ServeMetrics.RouteState(
                route: name, keyCount: count, keyAge: VerificationPolicy.systemClock() - loadedAt, keySet: nil, cache: verifier.cache?.counters)
        case .remote(let remote):
            let keys = remote.keySet.currentKeys()
            return ServeMetrics.RouteState(
                route: name, keyCount: keys?.keys.filter { $0.unusableReason == nil }.count ?? 0,
                keyAge: remote.keySet.validity.map { VerificationPolicy.systemClock() - $0.fetchedAt }, keySet: remote.keySet.metrics,
                cache: remote.cache?.counters)
        }
    }
}

/// A Boolean set from another task.
private final class Flag: @unchecked Sendable {
    // Safety: written before Blocking.run returns, read after.
    private(set) var value = false
    func set(_ value: Bool) { self.value = value }
}

/// The routes `serve` answers with: the command line's (`default`) and `--config`'s.
struct ServeRoutes: Sendable {
    let routes: [String: ServeRoute]

    /// The route a path names after its endpoint (`/auth/NAME`), or the default route.
    func route(forSubpath subpath: Substring) -> ServeRoute? {
        let first = subpath.split(separator: "/", maxSplits: 1).first.map(String.init)
        if let first, let named = routes[first] { return named }
        return routes[ServeRoute.defaultName]
    }

    /// Loads the command line's route and every route of `configFile`.
    static func load(commandLine: RouteOptions?, configFile: String?, requireKeys: Bool) throws(CommandFailure) -> ServeRoutes {
        var options: [String: RouteOptions] = [:]
        if let configFile { options = try ServeConfig.routes(fromFile: configFile) }
        if let commandLine {
            if options[ServeRoute.defaultName] != nil {
                throw CommandFailure(status: .dataError, message: "\(configFile ?? ""): route \"default\" is the command line's; name it otherwise")
            }
            options[ServeRoute.defaultName] = commandLine
        }
        guard !options.isEmpty else { throw CommandFailure(status: .dataError, message: "\(configFile ?? "serve"): no routes") }
        var routes: [String: ServeRoute] = [:]
        for (name, route) in options { routes[name] = try ServeRoute(name: name, options: route, requireKeys: requireKeys) }
        return ServeRoutes(routes: routes)
    }
}
