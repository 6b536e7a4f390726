/// The bearer token the App Store Server API requires: an ES256 JWT signed with an In-App Purchase
/// key (`.p8`) from App Store Connect.
///
/// Header `{"alg":"ES256","kid":<key ID>,"typ":"JWT"}`; claims `iss` = issuer ID, `iat` = now,
/// `exp` at most 3600 s later (Apple refuses tokens that last longer than 60 minutes),
/// `aud` = `appstoreconnect-v1`, `bid` = the app's bundle ID. Failures are
/// ``AppleClientSecret/Failure``'s codes.
public enum AppStoreServerAPIToken {
    /// The longest lifetime Apple accepts: 60 minutes.
    public static let maximumLifetime = 3600.0

    /// The token's audience.
    public static let audience = "appstoreconnect-v1"

    /// Makes a token.
    ///
    /// - Parameters:
    ///   - issuerID: your issuer ID, from the Keys page in App Store Connect (the token's `iss`).
    ///   - keyID: the In-App Purchase key's ID (the header's `kid`).
    ///   - bundleID: your app's bundle ID (the token's `bid`).
    ///   - privateKeyPEM: the contents of the `SubscriptionKey_<keyID>.p8` file (PKCS#8, P-256).
    ///   - lifetime: seconds until `exp` (1 … ``maximumLifetime``), 60 minutes by default.
    ///   - now: the issue time (`iat`), in seconds since the epoch; the current time by default.
    /// - Throws: ``AppleClientSecret/Failure`` with `invalid_lifetime`, `missing_identifier` (an
    ///   empty ID), `key_not_pkcs8`, `key_not_p256` or `signing_failed`.
    public static func make(
        issuerID: String, keyID: String, bundleID: String, privateKeyPEM: [UInt8], lifetime: Double = 3600,
        now: Double = VerificationPolicy.systemClock()
    ) throws(AppleClientSecret.Failure) -> String {
        guard lifetime >= 1, lifetime <= maximumLifetime else {
            throw AppleClientSecret.Failure(
                .invalidLifetime, "lifetime must be 1 to \(Int(maximumLifetime)) seconds (Apple's limit is 60 minutes)")
        }
        guard !issuerID.isEmpty, !keyID.isEmpty, !bundleID.isEmpty else {
            throw AppleClientSecret.Failure(.missingIdentifier, "issuer, key and bundle IDs are required")
        }
        let signer = try AppleES256Signer(privateKeyPEM: privateKeyPEM)
        let issuedAt = Double(Int64(now.rounded(.down)))
        return try signer.jwt(keyID: keyID, typed: true) { claims in
            claims.key("iss")
            claims.string(issuerID)
            claims.key("iat")
            claims.number(issuedAt)
            claims.key("exp")
            claims.number(issuedAt + lifetime.rounded(.down))
            claims.key("aud")
            claims.string(audience)
            claims.key("bid")
            claims.string(bundleID)
        }
    }
}
