/// The JWS Apple's "Generating JWS to sign App Store requests" describes, shared by the
/// promotional offer (V2), introductory-offer eligibility and Advanced Commerce signers: header
/// `{"alg":"ES256","kid":<key ID>,"typ":"JWT"}`, claims `iss` (issuer ID), `iat`, `aud` (the
/// feature's), `bid`, `nonce` (a lowercase UUID), then the feature's own claims; no `exp`.
enum AppStoreRequestJWS {
    /// Checks the identifiers and the nonce, reads the key, and signs.
    static func make(
        audience: String, issuerID: String, keyID: String, bundleID: String, privateKeyPEM: [UInt8],
        nonce: String?, now: Double, writeClaims: (inout OutputText) -> Void
    ) throws(AppleClientSecret.Failure) -> String {
        guard !issuerID.isEmpty, !keyID.isEmpty, !bundleID.isEmpty else {
            throw AppleClientSecret.Failure(.missingIdentifier, "issuer, key and bundle IDs are required")
        }
        let nonce = try AppStoreNonce.make(nonce)
        let signer = try AppleES256Signer(privateKeyPEM: privateKeyPEM)
        let issuedAt = Double(Int64(now.rounded(.down)))
        return try signer.jwt(keyID: keyID, typed: true) { claims in
            claims.key("iss")
            claims.string(issuerID)
            claims.key("iat")
            claims.number(issuedAt)
            claims.key("aud")
            claims.string(audience)
            claims.key("bid")
            claims.string(bundleID)
            claims.key("nonce")
            claims.string(nonce)
            writeClaims(&claims)
        }
    }

    /// ``AppleClientSecret/Failure/Code/missingIdentifier`` naming `what` when `value` is empty.
    static func require(_ value: String, _ what: String) throws(AppleClientSecret.Failure) {
        guard value.isEmpty else { return }
        throw AppleClientSecret.Failure(.missingIdentifier, "\(what) is required (not empty)")
    }
}
