import JWTVerify
import JWTVerifyRemote
import JWTVerifyServer
import JWTVerifyTooling

extension RouteOptions {
    /// These options resolved once into what the server needs: the route's configuration.
    func configuration(name: String) -> RouteConfiguration {
        var configuration = RouteConfiguration(
            name: name, claimHeaders: claimHeaders, tokenHeader: tokenHeader, tokenCookie: tokenCookie, realm: realm,
            nonce: flags.nonce,
            time: flags.evaluationTime, cacheMaxAge: cacheControlMaxAge)
        configuration.refreshWait = refreshWait
        return configuration
    }

    /// Loads the route's key files, or its remote key set (snapshot or fetch, waiting at most the
    /// fetch timeout), into a ready route. A remote set still without keys fails when
    /// `requireKeys` (a reload, which then keeps the old route); at start it is retried in the
    /// background and `/ready` says when. With `replayStore`, accepted DPoP proofs are recorded
    /// there (``StoreDPoPRecorder``), not in the verifier's own cache.
    func loadRoute(name: String, requireKeys: Bool, replayStore: (any ReplayStore)? = nil) throws(CommandFailure)
        -> ServeRoute
    {
        if !issuers.isEmpty {
            var entries: [ServeRoute] = []
            for (index, entry) in issuers.enumerated() {
                entries.append(
                    try entry.loadRoute(
                        name: "\(name)#\(index + 1)", requireKeys: requireKeys, replayStore: replayStore))
            }
            return ServeRoute(configuration: configuration(name: name), issuers: entries)
        }
        let cache: VerifiedTokenCache.Configuration? = cacheCapacity > 0 ? .init(capacity: cacheCapacity) : nil
        // The claim headers' claims are kept by the verifier's own pass over the payload.
        var policy = self.policy
        policy.capturedClaims = claimHeaders.map(\.claim)
        let recorder = replayStore.map { StoreDPoPRecorder(store: $0, route: name) }
        let keys: ServeRoute.Keys
        if let keySet = remoteKeySet {
            try keySets.prepareCacheDirectory()
            Blocking.run { await keySet.load() }
            if keySet.currentKeys() == nil {
                let message =
                    "route \"\(name)\": no keys from \(keySet.url) (\(keySet.lastFailure ?? "not fetched"))"
                if requireKeys { throw CommandFailure(status: .unavailable, message: message) }
                StandardError.write("jwtverify serve: warning: \(message); retrying in the background\n")
            }
            keys = .remote(RemoteVerifier(keySet: keySet, policy: policy, cache: cache, proofRecorder: recorder))
        } else if flags.keysFromTokens {
            keys = .files(
                Verifier(keys: JWKSet(keys: []), policy: policy, cache: cache, proofRecorder: recorder),
                loadedAt: VerificationPolicy.systemClock(), count: 0)
        } else {
            let loaded = try KeySetLoader.load(keySets)
            keys = .files(
                Verifier(keys: loaded, policy: policy, cache: cache, proofRecorder: recorder),
                loadedAt: VerificationPolicy.systemClock(),
                count: loaded.keys.filter { $0.unusableReason == nil }.count)
        }
        return ServeRoute(configuration: configuration(name: name), keys: keys)
    }

    /// The route's remote key set, if it has one: its issuer's by discovery (`--discover`), or
    /// its one `--jwks` URL.
    private var remoteKeySet: RemoteKeySet? {
        if let issuer = keySets.discoveryIssuer {
            return RemoteKeySet.discovering(
                issuer: issuer, policy: keySets.policy, snapshotDirectory: keySets.cacheDirectory)
        }
        guard keySets.sources.count == 1, case .url(let url) = KeySetSource(parsing: keySets.sources[0]) else {
            return nil
        }
        return RemoteKeySet(
            url: url, fetcher: HTTPKeySetFetcher(), policy: keySets.policy, snapshotDirectory: keySets.cacheDirectory)
    }
}

extension ServeRoutes {
    /// Loads the command line's route and every route of `configFile`, their DPoP proofs recorded
    /// in `replayStore` when given.
    static func load(
        commandLine: RouteOptions?, configFile: String?, requireKeys: Bool, replayStore: (any ReplayStore)? = nil
    ) throws(CommandFailure) -> ServeRoutes {
        var options: [String: RouteOptions] = [:]
        if let configFile { options = try ServeConfig.routes(fromFile: configFile) }
        if let commandLine {
            if options[ServeRoute.defaultName] != nil {
                throw CommandFailure(
                    status: .dataError,
                    message: "\(configFile ?? ""): route \"default\" is the command line's; name it otherwise")
            }
            options[ServeRoute.defaultName] = commandLine
        }
        guard !options.isEmpty else {
            throw CommandFailure(status: .dataError, message: "\(configFile ?? "serve"): no routes")
        }
        var routes: [String: ServeRoute] = [:]
        for (name, route) in options {
            do {
                routes[name] = try route.loadRoute(name: name, requireKeys: requireKeys, replayStore: replayStore)
            } catch {
                // A config route's keys: the file, the route and the key in the config's words.
                guard let configFile, name != ServeRoute.defaultName || commandLine == nil else { throw error }
                let message =
                    error.message.hasPrefix("route \"\(name)\": ")
                    ? String(error.message.dropFirst("route \"\(name)\": ".count)) : error.message
                throw CommandFailure(
                    status: error.status,
                    message: "--config \(configFile): route \"\(name)\": " + ServeConfig.keyNames(message))
            }
        }
        return ServeRoutes(routes: routes)
    }
}
