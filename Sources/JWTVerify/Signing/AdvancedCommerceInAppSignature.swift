/// A signed Advanced Commerce API in-app request, which the app passes to StoreKit's purchase
/// (`Product.PurchaseOption.advancedCommerceData(_:)`): a JWS signed with an In-App Purchase `.p8`
/// key, as Apple's "Generating JWS to sign App Store requests" describes.
///
/// Header `{"alg":"ES256","kid":<key ID>,"typ":"JWT"}`; claims `iss` (issuer ID), `iat`, `aud`
/// `advanced-commerce-api`, `bid`, `nonce` (a lowercase UUID), and `request`: the request's JSON
/// bytes, exactly as given, in standard base64 (RFC 4648 §4, padded); no `exp`. Failures are
/// ``AppleClientSecret/Failure``'s codes.
public enum AdvancedCommerceInAppSignature {
    /// The signature's audience.
    public static let audience = "advanced-commerce-api"

    /// Makes a signed request.
    ///
    /// - Parameters:
    ///   - issuerID: your issuer ID, from the Keys page in App Store Connect (`iss`).
    ///   - keyID: the In-App Purchase key's ID (the header's `kid`).
    ///   - bundleID: your app's bundle ID (`bid`).
    ///   - privateKeyPEM: the contents of the key's `.p8` file (PKCS#8, P-256).
    ///   - request: the in-app request (a one-time charge, a subscription creation…) as one JSON
    ///     object, in the form Apple's Advanced Commerce API documents; signed as given.
    ///   - nonce: a UUID (written in lowercase); a new random one by default.
    ///   - now: the issue time (`iat`), in seconds since the epoch; the current time by default.
    /// - Throws: ``AppleClientSecret/Failure`` with `invalid_request` (not one JSON object),
    ///   `missing_identifier`, `invalid_nonce`, `key_not_pkcs8`, `key_not_p256` or `signing_failed`.
    public static func make(
        issuerID: String, keyID: String, bundleID: String, privateKeyPEM: [UInt8], request: [UInt8],
        nonce: String? = nil, now: Double = VerificationPolicy.systemClock()
    ) throws(AppleClientSecret.Failure) -> String {
        guard case .success(let document) = JSONDocument.parse(request), document.withRoot({ $0.kind == .object })
        else {
            throw AppleClientSecret.Failure(.invalidRequest, "the Advanced Commerce request is not one JSON object")
        }
        let encoded = AppleES256Signer.standardBase64(request)
        return try AppStoreRequestJWS.make(
            audience: audience, issuerID: issuerID, keyID: keyID, bundleID: bundleID, privateKeyPEM: privateKeyPEM,
            nonce: nonce, now: now
        ) { claims in
            claims.key("request")
            claims.string(encoded)
        }
    }
}
