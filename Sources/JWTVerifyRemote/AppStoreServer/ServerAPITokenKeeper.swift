import Synchronization

/// Keeps one App Store Server API bearer token and makes a new one only when the current one
/// nears its end (a tenth of its lifetime, at least a minute): one token per lifetime, never one
/// per request. Prints without the token.
final class ServerAPITokenKeeper: Sendable, CustomStringConvertible {
    /// Makes a token valid from `now` for `lifetime` seconds.
    typealias Maker = @Sendable (_ now: Double, _ lifetime: Double) throws -> String

    private let make: Maker
    private let lifetime: Double
    private let clock: @Sendable () -> Double
    private let current = Mutex<(token: String, expiresAt: Double, made: Int)?>(nil)

    /// A keeper of tokens of `lifetime` seconds; the first is made here, so an unusable key fails at once.
    init(lifetime: Double, clock: @escaping @Sendable () -> Double, make: @escaping Maker)
        throws(AppStoreServerError)
    {
        self.make = make
        self.lifetime = lifetime
        self.clock = clock
        _ = try token()
    }

    /// Tokens made so far.
    var made: Int { current.withLock { $0?.made ?? 0 } }

    var description: String { "ServerAPITokenKeeper(lifetime: \(lifetime), made: \(made), token: <redacted>)" }

    /// The current token, renewed once less than a tenth of its lifetime (at least a minute) is left.
    func token() throws(AppStoreServerError) -> String {
        let now = clock()
        let margin = max(60, lifetime / 10)
        if let kept = current.withLock({ $0 }), kept.expiresAt - now > margin { return kept.token }
        let token: String
        do {
            token = try make(now, lifetime)
        } catch {
            throw AppStoreServerError(
                .configuration, .invalidConfiguration, detail: "cannot make a bearer token: \(error)")
        }
        return current.withLock { kept in
            if let kept, kept.expiresAt - now > margin { return kept.token }
            kept = (token, now.rounded(.down) + lifetime.rounded(.down), (kept?.made ?? 0) + 1)
            return token
        }
    }
}
