import Synchronization

/// A key set fetched from a URL and kept current: the cache that never lets a service down.
///
/// - honours `Cache-Control: max-age` (clamped by the policy) and revalidates with
///   `If-None-Match`/`If-Modified-Since`; a 304 keeps the keys;
/// - refreshes ahead of expiry in the background, so callers never wait on a routine refresh;
/// - an unknown `kid` triggers at most one refresh per cooldown, stamped before the fetch;
/// - single flight: concurrent callers share one fetch;
/// - stale-if-error: when the origin fails, the last good keys keep serving (marked stale) for a
///   bounded window, and a good set is never replaced by an empty or unparsable one;
/// - an optional on-disk snapshot, written atomically and read at start;
/// - ``metrics`` for export.
///
/// No lock is held during I/O: fetches run in a task, and readers take the current immutable
/// `JWKSet` under a short lock.
public final class RemoteKeySet: Sendable {
    /// The document's URL.
    public let url: String
    private let fetcher: any KeySetFetcher
    private let snapshotPath: String?
    private let clock: @Sendable () -> Double
    private let state: Mutex<KeyCacheState>
    private let inFlight = Mutex<Task<Void, Never>?>(nil)

    /// A cache for `url`, fetched with `fetcher`.
    ///
    /// - Parameters:
    ///   - url: the key set's `https://` URL (`http://` on loopback, for tests).
    ///   - fetcher: what fetches it (`HTTPKeySetFetcher` from `JWTVerifyRemote`, or your own).
    ///   - policy: how long fetched keys are kept (the origin's `max-age`, clamped).
    ///   - snapshotDirectory: where to keep an on-disk snapshot (read now, written after each fetch).
    ///   - clock: the time source (seconds since the epoch).
    public init(
        url: String, fetcher: some KeySetFetcher, policy: KeyCachePolicy = KeyCachePolicy(),
        snapshotDirectory: String? = nil,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) {
        self.url = url
        self.fetcher = fetcher
        self.clock = clock
        self.snapshotPath = snapshotDirectory.map { KeySetSnapshotFile.path(for: url, in: $0) }
        var initial = KeyCacheState(policy: policy)
        if let snapshotPath, let snapshot = KeySetSnapshotFile.read(from: snapshotPath, url: url),
            let keys = try? JWKSet(json: snapshot.document)
        {
            initial.restore(
                keys, fetchedAt: snapshot.fetchedAt, expiresAt: snapshot.expiresAt, etag: snapshot.etag,
                lastModified: snapshot.lastModified)
        }
        state = Mutex(initial)
    }

    /// The keys to verify with now, without waiting; `nil` when there are none to serve. Starts a
    /// background refresh when one is due.
    public func currentKeys() -> JWKSet? { currentKeysAndGeneration().keys }

    /// The keys to serve and their generation, read together under one lock.
    func currentKeysAndGeneration() -> (keys: JWKSet?, generation: Int) {
        let now = clock()
        let (keys, generation, due) = state.withLock { state -> (JWKSet?, Int, Bool) in
            let freshness = state.freshness(at: now)
            return (state.servingKeys(at: now), state.generation, freshness != .fresh)
        }
        if due { startFetch(.scheduled) }
        return (keys, generation)
    }

    /// Fetches now if there are no servable keys (start-up), and waits for it; otherwise returns.
    public func load() async {
        if let task = startFetch(.initial) { await task.value }
    }

    /// Fetches now if the keys are missing, due for refresh or stale, and waits for it (for
    /// short-lived processes such as the CLI, which cannot rely on a background refresh).
    public func refreshIfDue() async {
        if let task = startFetch(.initial) ?? startFetch(.scheduled) { await task.value }
    }

    /// Whether the keys served now are past their lifetime (kept because the origin fails).
    public var isStale: Bool { state.withLock { $0.freshness(at: clock()) == .stale } }

    /// After a token named a `kid` the keys lack: refreshes at most once per cooldown (sharing a
    /// fetch already running) and returns whether the keys changed.
    public func refreshForUnknownKeyID() async -> Bool {
        let before = state.withLock { $0.generation }
        guard let task = startFetch(.unknownKeyID) else { return false }
        await task.value
        return state.withLock { $0.generation } != before
    }

    /// Starts the unknown-`kid` refresh (or joins the one running) without waiting for it: `nil`
    /// when the cooldown allows none now. The fetch runs in a task of its own.
    package func beginRefreshForUnknownKeyID() -> KeyRefresh? {
        let before = state.withLock { $0.generation }
        guard let task = startFetch(.unknownKeyID) else { return nil }
        let refresh = KeyRefresh()
        Task { [self] in
            await task.value
            refresh.complete(changed: state.withLock { $0.generation } != before)
        }
        return refresh
    }

    /// The counters so far.
    public var metrics: KeyCacheMetrics { state.withLock { $0.metrics } }

    /// When the current keys were fetched or revalidated, and when they expire.
    public var validity: (fetchedAt: Double, expiresAt: Double)? {
        state.withLock { state in
            guard let fetchedAt = state.fetchedAt, let expiresAt = state.expiresAt else { return nil }
            return (fetchedAt, expiresAt)
        }
    }

    /// The last fetch failure, if the most recent attempt failed.
    public var lastFailure: String? { state.withLock { $0.lastFailure?.description } }

    /// Starts a fetch for `reason`, or joins the one running; `nil` when none is allowed now.
    @discardableResult
    private func startFetch(_ reason: KeyCacheState.RefreshReason) -> Task<Void, Never>? {
        inFlight.withLock { running -> Task<Void, Never>? in
            if let running { return running }
            let now = clock()
            let validators = state.withLock { state -> (Bool, String?, String?) in
                (state.beginRefresh(reason, at: now), state.etag, state.lastModified)
            }
            guard validators.0 else { return nil }
            let task = Task { [self] in
                await self.performFetch(etag: validators.1, lastModified: validators.2)
                self.inFlight.withLock { $0 = nil }
            }
            running = task
            return task
        }
    }

    private func performFetch(etag: String?, lastModified: String?) async {
        let result = await fetcher.fetch(url, etag: etag, lastModified: lastModified)
        let now = clock()
        switch result {
        case .document(let body, let maxAge, let newETag, let newLastModified):
            let keys: JWKSet
            do {
                keys = try JWKSet(json: body)
            } catch {
                state.withLock { $0.failed("unusable document: \(error)", at: now) }
                return
            }
            let snapshot = state.withLock { state -> KeySetSnapshotFile? in
                state.fetched(keys, maxAge: maxAge, etag: newETag, lastModified: newLastModified, at: now)
                guard state.lastFailure == nil, let expiresAt = state.expiresAt else { return nil }
                return KeySetSnapshotFile(
                    url: url, fetchedAt: now, expiresAt: expiresAt, etag: newETag, lastModified: newLastModified,
                    document: body)
            }
            if let snapshot, let snapshotPath { snapshot.write(to: snapshotPath) }
        case .notModified(let maxAge):
            state.withLock { $0.notModified(maxAge: maxAge, at: now) }
            if let snapshotPath, let old = KeySetSnapshotFile.read(from: snapshotPath, url: url),
                let expiresAt = state.withLock({ $0.expiresAt })
            {
                KeySetSnapshotFile(
                    url: url, fetchedAt: now, expiresAt: expiresAt, etag: old.etag, lastModified: old.lastModified,
                    document: old.document
                ).write(to: snapshotPath)
            }
        case .failed(let description):
            state.withLock { $0.failed(description, at: now) }
        }
    }
}
