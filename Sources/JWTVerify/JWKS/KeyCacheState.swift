/// The bookkeeping of one cached remote key set, as a value: events in, decisions out, no I/O.
///
/// `RemoteKeySet` keeps one of these under a lock and performs what it decides. Everything
/// time-dependent takes `now` as an argument, so each rule is tested without a clock or a network.
struct KeyCacheState: Sendable {
    let policy: KeyCachePolicy

    /// The last good keys, and when they were fetched (or revalidated) and expire.
    private(set) var keys: JWKSet?
    private(set) var fetchedAt: Double?
    private(set) var expiresAt: Double?
    /// Validators for the next conditional request.
    private(set) var etag: String?
    private(set) var lastModified: String?
    /// The last failure's description and time.
    private(set) var lastFailure: (at: Double, description: String)?
    /// Incremented whenever `keys` changes.
    private(set) var generation = 0
    private(set) var metrics = KeyCacheMetrics()

    private var retryNotBefore = 0.0
    private var unknownKeyIDCooldownUntil = 0.0
    private var refreshing = false

    init(policy: KeyCachePolicy) { self.policy = policy }

    /// How current the keys are at `now`.
    enum Freshness: Equatable {
        /// No keys at all.
        case empty
        /// Keys within their lifetime, before the refresh-ahead point.
        case fresh
        /// Keys still valid, but a background refresh is due.
        case refreshDue
        /// Past expiry but within the stale window: served, marked stale.
        case stale
        /// Past the stale window: not served.
        case unusable
    }

    func freshness(at now: Double) -> Freshness {
        guard keys != nil, let fetchedAt, let expiresAt else { return .empty }
        if now >= expiresAt + policy.staleWindow { return .unusable }
        if now >= expiresAt { return .stale }
        if now >= fetchedAt + (expiresAt - fetchedAt) * policy.refreshAhead { return .refreshDue }
        return .fresh
    }

    /// The keys to verify with at `now` (`nil` when there are none, or they are too old to serve).
    mutating func servingKeys(at now: Double) -> JWKSet? {
        switch freshness(at: now) {
        case .empty, .unusable: return nil
        case .stale:
            metrics.staleServes += 1
            return keys
        case .fresh, .refreshDue: return keys
        }
    }

    /// Why a refresh is wanted.
    enum RefreshReason: Equatable {
        /// No keys yet (start-up, or nothing servable).
        case initial
        /// The keys are due for refresh or stale.
        case scheduled
        /// A token named a `kid` the keys lack.
        case unknownKeyID
    }

    /// Whether a fetch should start now for `reason`. Marks the fetch as running (single flight),
    /// and for unknown kids stamps the cooldown *before* the fetch, so a flood of random kids costs
    /// at most one fetch per cooldown window.
    mutating func beginRefresh(_ reason: RefreshReason, at now: Double) -> Bool {
        guard !refreshing else { return false }
        switch reason {
        case .initial:
            guard freshness(at: now) == .empty || freshness(at: now) == .unusable, now >= retryNotBefore else {
                return false
            }
        case .scheduled:
            let state = freshness(at: now)
            guard state == .refreshDue || state == .stale || state == .unusable, now >= retryNotBefore else {
                return false
            }
        case .unknownKeyID:
            guard now >= unknownKeyIDCooldownUntil else {
                metrics.cooldownHits += 1
                return false
            }
            unknownKeyIDCooldownUntil = now + policy.unknownKeyIDCooldown
            metrics.unknownKeyIDRefreshes += 1
        }
        refreshing = true
        metrics.fetches += 1
        return true
    }

    /// A 200 with a usable key set (at least one usable key) replaces the keys; anything else
    /// (an empty set, no usable key) is a failure that keeps the old keys.
    mutating func fetched(_ newKeys: JWKSet, maxAge: Double?, etag: String?, lastModified: String?, at now: Double) {
        refreshing = false
        guard newKeys.keys.contains(where: { $0.unusableReason == nil }) else {
            failed("the key set has no usable key", at: now)
            return
        }
        keys = newKeys
        generation += 1
        fetchedAt = now
        expiresAt = now + policy.ttl(maxAge: maxAge)
        self.etag = etag
        self.lastModified = lastModified
        lastFailure = nil
        metrics.lastSuccess = now
        metrics.currentKeyIDs = newKeys.keys.compactMap(\.keyID)
    }

    /// A 304: the keys are confirmed for another lifetime.
    mutating func notModified(maxAge: Double?, at now: Double) {
        refreshing = false
        metrics.notModified += 1
        guard keys != nil else {
            failed("304 Not Modified without cached keys", at: now)
            return
        }
        fetchedAt = now
        expiresAt = now + policy.ttl(maxAge: maxAge)
        lastFailure = nil
        metrics.lastSuccess = now
    }

    /// A failed fetch (timeout, refused, 5xx, garbage, oversized): the old keys stay.
    mutating func failed(_ description: String, at now: Double) {
        refreshing = false
        metrics.failures += 1
        lastFailure = (now, description)
        retryNotBefore = now + policy.retryAfterFailure
    }

    /// Restores keys from an on-disk snapshot (before any fetch).
    mutating func restore(
        _ snapshotKeys: JWKSet, fetchedAt: Double, expiresAt: Double, etag: String?, lastModified: String?
    ) {
        keys = snapshotKeys
        generation += 1
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
        self.etag = etag
        self.lastModified = lastModified
        metrics.currentKeyIDs = snapshotKeys.keys.compactMap(\.keyID)
    }
}

/// Counters a service can export to its metrics system.
public struct KeyCacheMetrics: Sendable, Equatable {
    /// Fetches started (including conditional requests).
    public var fetches = 0
    /// 304 responses.
    public var notModified = 0
    /// Failed fetches (network errors, bad status, unusable bodies).
    public var failures = 0
    /// Times stale keys were served because the origin could not be reached.
    public var staleServes = 0
    /// Unknown-kid refresh requests refused by the cooldown.
    public var cooldownHits = 0
    /// Refreshes started because of an unknown kid.
    public var unknownKeyIDRefreshes = 0
    /// The kids currently cached.
    public var currentKeyIDs: [String] = []
    /// When the last fetch or revalidation succeeded (seconds since the epoch).
    public var lastSuccess: Double?

    /// All zero.
    public init() {}
}
