/// The client secret Apple's REST endpoints (token validation, revocation) require: an ES256 JWT
/// signed with the developer's `.p8` key.
///
/// Header `{"alg":"ES256","kid":<key ID>}`; claims `iss` = team ID, `sub` = client (Services or
/// bundle) ID, `aud` = `https://appleid.apple.com`, `iat` = now, `exp` at most 15,777,000 s later.
public enum AppleClientSecret {
    /// The longest lifetime Apple accepts (about six months).
    public static let maximumLifetime = 15_777_000.0

    /// Why a secret could not be made: a stable ``Code`` and a sentence for people.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was wrong, as a stable code.
        public struct Code: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
            /// The code's text (`key_not_pkcs8`).
            public let rawValue: String
            /// A code from its text.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The code's text.
            public var description: String { rawValue }

            /// The lifetime is outside 1 … ``AppleClientSecret/maximumLifetime``.
            public static let invalidLifetime = Code(rawValue: "invalid_lifetime")
            /// The team, key or client ID is empty.
            public static let missingIdentifier = Code(rawValue: "missing_identifier")
            /// The key bytes are not a PEM private key (an Apple `.p8` file is PKCS#8 PEM).
            public static let keyNotPKCS8 = Code(rawValue: "key_not_pkcs8")
            /// The key is a private key, but not an EC P-256 one.
            public static let keyNotP256 = Code(rawValue: "key_not_p256")
            /// OpenSSL could not sign with the key.
            public static let signingFailed = Code(rawValue: "signing_failed")
        }

        /// What was wrong, as a stable code.
        public let code: Code
        /// What was wrong, for people; never the key's bytes.
        public let description: String

        init(_ code: Code, _ description: String) {
            self.code = code
            self.description = description
        }
    }

    /// What a `.p8` that OpenSSL cannot read is called (its decoder's own text says nothing useful).
    static let notPKCS8 =
        "the key is not a PKCS#8 EC private key (an Apple .p8 file holds one, as PEM between "
        + "-----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY-----)"

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
            throw Failure(.invalidLifetime, "lifetime must be 1 to \(Int(maximumLifetime)) seconds")
        }
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty else {
            throw Failure(.missingIdentifier, "team, key and client IDs are required")
        }
        let signer = try AppleES256Signer(privateKeyPEM: privateKeyPEM)
        let issuedAt = Double(Int64(now.rounded(.down)))
        return try signer.jwt(keyID: keyID, typed: false) { claims in
            claims.key("iss")
            claims.string(teamID)
            claims.key("iat")
            claims.number(issuedAt)
            claims.key("exp")
            claims.number(issuedAt + lifetime.rounded(.down))
            claims.key("aud")
            claims.string("https://appleid.apple.com")
            claims.key("sub")
            claims.string(clientID)
        }
    }
}
