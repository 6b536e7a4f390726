import JWTVerify
import Synchronization

/// Keeps one client secret and makes a new one only when the current one nears its end: a client
/// makes a secret once per lifetime, never one per request. Prints without the secret or the key.
final class ClientSecretKeeper: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let credentials: SignInWithAppleCredentials
    private let lifetime: Double
    private let clock: @Sendable () -> Double
    private let current = Mutex<(secret: String, expiresAt: Double, made: Int)?>(nil)

    /// A keeper making secrets of `lifetime` seconds for `credentials`; the first is made here, so
    /// an unusable key fails at once.
    init(credentials: SignInWithAppleCredentials, lifetime: Double, clock: @escaping @Sendable () -> Double)
        throws(SignInWithAppleError)
    {
        self.credentials = credentials
        self.lifetime = lifetime
        self.clock = clock
        _ = try secret()
    }

    /// Secrets made so far.
    var made: Int { current.withLock { $0?.made ?? 0 } }

    var description: String {
        Redacted.describe(
            "ClientSecretKeeper",
            ["credentials": credentials, "lifetime": lifetime, "made": made, "secret": Redacted.marker])
    }
    var debugDescription: String { description }
    var customMirror: Mirror {
        Mirror(
            self,
            children: ["credentials": credentials, "lifetime": lifetime, "made": made, "secret": Redacted.marker],
            displayStyle: .class)
    }

    /// The current secret, renewed once less than a tenth of its lifetime (at least a minute) is left.
    func secret() throws(SignInWithAppleError) -> String {
        let now = clock()
        let margin = max(60, lifetime / 10)
        if let kept = current.withLock({ $0 }), kept.expiresAt - now > margin { return kept.secret }
        let secret: String
        do {
            secret = try AppleClientSecret.make(
                teamID: credentials.teamID, keyID: credentials.keyID, clientID: credentials.clientID,
                privateKeyPEM: credentials.privateKeyPEM, lifetime: lifetime, now: now)
        } catch {
            throw SignInWithAppleError(
                .configuration, .invalidConfiguration, detail: "cannot make a client secret: \(error.description)")
        }
        return current.withLock { kept in
            // Another thread may have renewed it meanwhile: keep the newer one.
            if let kept, kept.expiresAt - now > margin { return kept.secret }
            kept = (secret, now.rounded(.down) + lifetime.rounded(.down), (kept?.made ?? 0) + 1)
            return secret
        }
    }
}
