/// How a remote key set is cached and refreshed. All durations are in seconds.
public struct KeyCachePolicy: Sendable, Equatable {
    /// Lower clamp for the origin's `Cache-Control: max-age`.
    public var minimumTTL: Double = 60
    /// Upper clamp for the origin's `max-age`.
    public var maximumTTL: Double = 86_400
    /// Lifetime when the origin sends no `max-age`.
    public var defaultTTL: Double = 3_600
    /// Share of the lifetime after which a background refresh starts (keys stay fresh meanwhile).
    public var refreshAhead: Double = 0.8
    /// Least time between two refreshes triggered by unknown `kid`s; stamped before the fetch.
    public var unknownKeyIDCooldown: Double = 30
    /// Least time between a failed fetch and the next background attempt.
    public var retryAfterFailure: Double = 30
    /// How long past expiry the last good keys keep serving while the origin fails (stale-if-error).
    public var staleWindow: Double = 86_400

    /// The defaults above.
    public init() {}

    /// The lifetime for an origin `max-age` (or its absence), clamped.
    package func ttl(maxAge: Double?) -> Double {
        min(max(maxAge ?? defaultTTL, minimumTTL), maximumTTL)
    }
}
