package import JWTVerify
import Synchronization

/// `serve`'s counters, and their Prometheus text exposition (format 0.0.4) for `/metrics`.
package final class ServeMetrics: Sendable {
    /// Upper bounds of the verification latency histogram, in seconds.
    package static let latencyBuckets: [Double] = [
        0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1,
    ]

    private struct Counts {
        /// Per route, per result reason ("" for valid).
        var verdicts: [String: [String: Int]] = [:]
        var latencyBuckets = [Int](repeating: 0, count: ServeMetrics.latencyBuckets.count)
        var latencyCount = 0
        var latencySum = 0.0
        var responses: [Int: Int] = [:]
        /// Both outcomes from the start, so that an alert on failed reloads has a series to read.
        var reloads: [String: Int] = ["ok": 0, "failed": 0]
        /// `/auth` batches by size (index 0: one request).
        var batchSizes = [Int](repeating: 0, count: AuthGathering.limit)
    }

    private let counts = Mutex(Counts())

    /// All counters at zero.
    package init() {}

    /// Counts one verification on `route`: its reason (`nil`: valid) and how long it took.
    package func verification(route: String, reason: VerificationError.Reason?, seconds: Double) {
        counts.withLock { counts in
            counts.verdicts[route, default: [:]][reason?.rawValue ?? "", default: 0] += 1
            counts.latencyCount += 1
            counts.latencySum += seconds
            if let bucket = Self.latencyBuckets.firstIndex(where: { seconds <= $0 }) {
                counts.latencyBuckets[bucket] += 1
            }
        }
    }

    /// Counts the verifications of one `/auth` batch of `count` on `route` under one lock: each
    /// one `counted(position)` says is final (one held for a key refresh is counted when it is
    /// verified again), with its reason (`reason(position)`, `nil`: valid) and its share of the
    /// batch's time. The batch's size counts once, whatever it held.
    package func batch(
        route: String, count: Int, secondsEach seconds: Double, counted: (Int) -> Bool = { _ in true },
        reason: (Int) -> VerificationError.Reason?
    ) {
        counts.withLock { counts in
            var final = 0
            for position in 0..<count where counted(position) {
                counts.verdicts[route, default: [:]][reason(position)?.rawValue ?? "", default: 0] += 1
                final += 1
            }
            counts.latencyCount += final
            counts.latencySum += seconds * Double(final)
            if let bucket = Self.latencyBuckets.firstIndex(where: { seconds <= $0 }) {
                counts.latencyBuckets[bucket] += final
            }
            counts.batchSizes[min(count, AuthGathering.limit) - 1] += 1
        }
    }

    /// Counts one `/auth` request that carried no token (answered 401 without an `error`), as
    /// `result="no_token"`: nothing was verified, so no latency is recorded.
    package func missingToken(route: String) {
        counts.withLock { $0.verdicts[route, default: [:]][Self.noToken, default: 0] += 1 }
    }

    /// The verdict key of ``missingToken(route:)``: not a reason code (those are lowercase words).
    private static let noToken = "<no token>"

    /// Counts one HTTP response.
    package func response(status: Int) {
        counts.withLock { $0.responses[status, default: 0] += 1 }
    }

    /// Counts one reload (`SIGHUP`) by outcome (`ok`, `failed`).
    package func reload(outcome: String) {
        counts.withLock { $0.reloads[outcome, default: 0] += 1 }
    }

    /// What `/metrics` shows of one route's keys and token cache.
    package struct RouteState {
        /// The route's name.
        package var route: String
        /// Usable keys held.
        package var keyCount: Int
        /// Seconds since the keys were loaded or last fetched.
        package var keyAge: Double?
        /// Remote key sets only.
        package var keySet: KeyCacheMetrics?
        /// The route's verified-token cache, when it has one.
        package var cache: VerifiedTokenCache.Counters?

        /// A route's state as read now.
        package init(
            route: String, keyCount: Int, keyAge: Double?, keySet: KeyCacheMetrics?, cache: VerifiedTokenCache.Counters?
        ) {
            self.route = route
            self.keyCount = keyCount
            self.keyAge = keyAge
            self.keySet = keySet
            self.cache = cache
        }
    }

    /// The exposition: every family with `# HELP` and `# TYPE`, counters ending in `_total`.
    package func exposition(routes: [RouteState]) -> String {
        let snapshot = counts.withLock { $0 }
        var text = ""
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func sample(_ name: String, _ labels: [(String, String)], _ value: String) {
            let rendered =
                labels.isEmpty
                ? "" : "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
            text += "\(name)\(rendered) \(value)\n"
        }

        family(
            "jwtverify_verifications_total", "counter",
            "Gateway checks and tokens verified, by route, result (valid, rejected, no_token) and reason.")
        // Every route has its valid series from the start (0 until a token verifies).
        var verdicts = snapshot.verdicts
        for route in routes where verdicts[route.route]?[""] == nil { verdicts[route.route, default: [:]][""] = 0 }
        for route in verdicts.keys.sorted() {
            for (reason, count) in verdicts[route]!.sorted(by: { $0.key < $1.key }) {
                let result = reason.isEmpty ? "valid" : reason == Self.noToken ? "no_token" : "rejected"
                sample(
                    "jwtverify_verifications_total",
                    [("route", route), ("result", result), ("reason", result == "rejected" ? reason : "none")],
                    "\(count)")
            }
        }
        family("jwtverify_verification_duration_seconds", "histogram", "Time to verify one token, in seconds.")
        var cumulative = 0
        for (bound, count) in zip(Self.latencyBuckets, snapshot.latencyBuckets) {
            cumulative += count
            sample("jwtverify_verification_duration_seconds_bucket", [("le", "\(bound)")], "\(cumulative)")
        }
        sample("jwtverify_verification_duration_seconds_bucket", [("le", "+Inf")], "\(snapshot.latencyCount)")
        sample("jwtverify_verification_duration_seconds_sum", [], "\(snapshot.latencySum)")
        sample("jwtverify_verification_duration_seconds_count", [], "\(snapshot.latencyCount)")

        family(
            "jwtverify_auth_batch_size", "histogram",
            "/auth requests verified together: each batch's size (requests waiting at the same moment, at most \(AuthGathering.limit))."
        )
        var batches = 0
        var requests = 0
        for (index, count) in snapshot.batchSizes.enumerated() {
            batches += count
            requests += count * (index + 1)
            sample("jwtverify_auth_batch_size_bucket", [("le", "\(index + 1)")], "\(batches)")
        }
        sample("jwtverify_auth_batch_size_bucket", [("le", "+Inf")], "\(batches)")
        sample("jwtverify_auth_batch_size_sum", [], "\(requests)")
        sample("jwtverify_auth_batch_size_count", [], "\(batches)")

        family("jwtverify_http_responses_total", "counter", "HTTP responses, by status code.")
        for (status, count) in snapshot.responses.sorted(by: { $0.key < $1.key }) {
            sample("jwtverify_http_responses_total", [("code", "\(status)")], "\(count)")
        }

        family("jwtverify_reloads_total", "counter", "Configuration and key reloads on SIGHUP, by outcome.")
        for (outcome, count) in snapshot.reloads.sorted(by: { $0.key < $1.key }) {
            sample("jwtverify_reloads_total", [("outcome", outcome)], "\(count)")
        }

        family("jwtverify_keys", "gauge", "Usable keys loaded, by route.")
        for route in routes { sample("jwtverify_keys", [("route", route.route)], "\(route.keyCount)") }
        family("jwtverify_keys_age_seconds", "gauge", "Seconds since the route's keys were loaded or last fetched.")
        for route in routes {
            if let age = route.keyAge { sample("jwtverify_keys_age_seconds", [("route", route.route)], "\(age)") }
        }

        family("jwtverify_jwks_fetches_total", "counter", "Remote key-set fetches, by route and outcome.")
        for route in routes {
            guard let keySet = route.keySet else { continue }
            let succeeded = max(0, keySet.fetches - keySet.failures - keySet.notModified)
            for (outcome, count) in [
                ("ok", succeeded), ("not_modified", keySet.notModified), ("failed", keySet.failures),
            ] {
                sample("jwtverify_jwks_fetches_total", [("route", route.route), ("outcome", outcome)], "\(count)")
            }
        }
        family(
            "jwtverify_jwks_unknown_kid_refreshes_total", "counter",
            "Key-set refreshes started by an unknown kid, by route.")
        for route in routes {
            if let keySet = route.keySet {
                sample(
                    "jwtverify_jwks_unknown_kid_refreshes_total", [("route", route.route)],
                    "\(keySet.unknownKeyIDRefreshes)")
            }
        }

        let cacheFamilies: [(String, String, String, KeyPath<VerifiedTokenCache.Counters, Int>)] = [
            ("jwtverify_token_cache_hits_total", "counter", "Verified-token cache hits.", \.hits),
            ("jwtverify_token_cache_misses_total", "counter", "Verified-token cache misses.", \.misses),
            ("jwtverify_token_cache_evictions_total", "counter", "Verified-token cache evictions.", \.evictions),
            ("jwtverify_token_cache_entries", "gauge", "Tokens held by the verified-token cache.", \.entries),
        ]
        for (name, type, help, path) in cacheFamilies {
            family(name, type, help)
            for route in routes {
                if let cache = route.cache { sample(name, [("route", route.route)], "\(cache[keyPath: path])") }
            }
        }
        return text
    }

    /// The replay store's families (`--replay-store`): `jwtverify_replay_store_up` (1 when the
    /// last exchange with it succeeded, 0 while it fails: DPoP proofs and notifications are then
    /// answered 503) and `jwtverify_replay_store_errors_total`.
    package static func replayStoreExposition(_ store: any ReplayStore) -> String {
        "# HELP jwtverify_replay_store_up Whether the last exchange with the replay store succeeded (1) or failed (0).\n"
            + "# TYPE jwtverify_replay_store_up gauge\n"
            + "jwtverify_replay_store_up \(store.isUp ? 1 : 0)\n"
            + "# HELP jwtverify_replay_store_errors_total Exchanges with the replay store that failed.\n"
            + "# TYPE jwtverify_replay_store_errors_total counter\n"
            + "jwtverify_replay_store_errors_total \(store.failures)\n"
    }

    private static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
