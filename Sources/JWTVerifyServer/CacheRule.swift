/// The `Cache-Control` of serve's `/auth` and `/verify` answers: `no-store` on every one, unless a
/// route opts in (`--cache-control-max-age N`) to `private, max-age=M` on a 200 `/auth` answer,
/// where M is N or the seconds left until the token's `exp`, whichever is less, and never below 0.
/// A refusal is never cacheable.
package enum CacheRule {
    /// The header's name.
    package static let header = "Cache-Control"
    /// The value of every answer that may not be kept.
    package static let noStore = "no-store"

    /// The value for a valid token expiring at `expiresAt` (seconds since the epoch; `nil`: no
    /// `exp`, so only `maxAge` bounds it) judged at `now`, on a route allowing `maxAge` seconds.
    package static func value(maxAge: Int, expiresAt: Double?, now: Double) -> String {
        var seconds = Double(maxAge)
        if let expiresAt { seconds = min(seconds, (expiresAt - now).rounded(.down)) }
        return "private, max-age=\(Int(max(0, seconds)))"
    }
}
