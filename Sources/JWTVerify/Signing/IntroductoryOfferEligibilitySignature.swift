/// The signature that tells StoreKit whether a customer may have a subscription's introductory
/// offer (`Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`): a JWS signed with an
/// In-App Purchase `.p8` key, as Apple's "Generating JWS to sign App Store requests" describes.
///
/// Header `{"alg":"ES256","kid":<key ID>,"typ":"JWT"}`; claims `iss` (issuer ID), `iat`, `aud`
/// `introductory-offer-eligibility`, `bid`, `nonce` (a lowercase UUID), `productId`,
/// `allowIntroductoryOffer` and `transactionId` (required, as Apple's libraries require it); no
/// `exp`. Failures are ``AppleClientSecret/Failure``'s codes.
public enum IntroductoryOfferEligibilitySignature {
    /// The signature's audience.
    public static let audience = "introductory-offer-eligibility"

    /// Makes a signature.
    ///
    /// - Parameters:
    ///   - issuerID: your issuer ID, from the Keys page in App Store Connect (`iss`).
    ///   - keyID: the In-App Purchase key's ID (the header's `kid`).
    ///   - bundleID: your app's bundle ID (`bid`).
    ///   - privateKeyPEM: the contents of the key's `.p8` file (PKCS#8, P-256).
    ///   - productID: the subscription's product ID (`productId`).
    ///   - allowIntroductoryOffer: whether the customer may have the offer (`allowIntroductoryOffer`).
    ///   - transactionID: any transaction ID of the customer's, or their `appTransactionId`, even
    ///     for a customer who has bought nothing yet (`transactionId`).
    ///   - nonce: a UUID (written in lowercase); a new random one by default.
    ///   - now: the issue time (`iat`), in seconds since the epoch; the current time by default.
    /// - Throws: ``AppleClientSecret/Failure`` with `missing_identifier` (an empty ID),
    ///   `invalid_nonce`, `key_not_pkcs8`, `key_not_p256` or `signing_failed`.
    public static func make(
        issuerID: String, keyID: String, bundleID: String, privateKeyPEM: [UInt8], productID: String,
        allowIntroductoryOffer: Bool, transactionID: String, nonce: String? = nil,
        now: Double = VerificationPolicy.systemClock()
    ) throws(AppleClientSecret.Failure) -> String {
        try AppStoreRequestJWS.require(productID, "the product ID")
        try AppStoreRequestJWS.require(transactionID, "the transaction ID")
        return try AppStoreRequestJWS.make(
            audience: audience, issuerID: issuerID, keyID: keyID, bundleID: bundleID, privateKeyPEM: privateKeyPEM,
            nonce: nonce, now: now
        ) { claims in
            claims.key("productId")
            claims.string(productID)
            claims.key("allowIntroductoryOffer")
            claims.bool(allowIntroductoryOffer)
            claims.key("transactionId")
            claims.string(transactionID)
        }
    }
}
