/// The client secret Apple's REST endpoints (token validation, revocation) require: an ES256 JWT
/// signed with the developer's `.p8` key.
///
/// Header `{"alg":"ES256","kid":<key ID>}`; claims `iss` = team ID, `sub` = client (Services or
/// bundle) ID, `aud` = `https://appleid.apple.com`, `iat` = now, `exp` at most 15,777,000 s later.
public enum AppleClientSecret {
    /// The longest lifetime Apple accepts (about six months).
    public static let maximumLifetime = 15_777_000.0

    /// Why a secret could not be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was wrong.
        public let description: String
    }

    /// Makes a client secret.
    ///
    /// - Parameters:
    ///   - teamID: your Apple Developer team ID (the token's `iss`).
    ///   - keyID: the Sign in with Apple key's ID (the header's `kid`).
    ///   - clientID: your Services ID or bundle ID (the token's `sub`).
    ///   - privateKeyPEM: the contents of the `AuthKey_<keyID>.p8` file (PKCS#8, P-256).
    ///   - lifetime: seconds until `exp` (1 … ``maximumLifetime``), one day by default.
    ///   - now: the issue time (`iat`), in seconds since the epoch; the current time by default.
    public static func make(
        teamID: String, keyID: String, clientID: String, privateKeyPEM: [UInt8], lifetime: Double = 86_400,
        now: Double = VerificationPolicy.systemClock()
    ) throws(Failure) -> String {
        guard lifetime >= 1, lifetime <= maximumLifetime else {
            throw Failure(description: "lifetime must be 1 to \(Int(maximumLifetime)) seconds")
        }
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty else {
            throw Failure(description: "team, key and client IDs are required")
        }
        let key: EVPPrivateKey
        do { key = try EVPPrivateKey.pem(privateKeyPEM) } catch {
            throw Failure(description: "cannot read the private key: \(error)")
        }
        guard exactlyEquals(key.keyType, "EC"),
            key.publicJWKMembers().contains(where: { exactlyEquals($0.0, "crv") && exactlyEquals($0.1, "P-256") })
        else {
            throw Failure(description: "the key is not an EC P-256 key (Apple's .p8 keys are)")
        }
        let issuedAt = Int64(now.rounded(.down))
        var header = OutputText()
        header.beginObject()
        header.key("alg")
        header.string("ES256")
        header.key("kid")
        header.string(keyID)
        header.endObject()
        var claims = OutputText()
        claims.beginObject()
        claims.key("iss")
        claims.string(teamID)
        claims.key("iat")
        claims.number(Double(issuedAt))
        claims.key("exp")
        claims.number(Double(issuedAt) + lifetime.rounded(.down))
        claims.key("aud")
        claims.string("https://appleid.apple.com")
        claims.key("sub")
        claims.string(clientID)
        claims.endObject()
        let signingInput = Base64URL.encode(header.bytes) + "." + Base64URL.encode(claims.bytes)
        do {
            return signingInput + "." + Base64URL.encode(try key.sign(Array(signingInput.utf8), algorithm: .es256))
        } catch {
            throw Failure(description: "signing failed: \(error)")
        }
    }
}
