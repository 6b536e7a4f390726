/// The original promotional-offer signature (StoreKit's `SKPaymentDiscount`, and
/// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`): an ECDSA
/// P-256 SHA-256 signature, with an In-App Purchase `.p8` key, over the UTF-8 of the bundle ID,
/// key ID, product ID, offer identifier, application username, nonce and timestamp, joined by
/// U+2063 INVISIBLE SEPARATOR, the username and nonce in lowercase, the
/// timestamp in decimal milliseconds; the signature in DER, in standard base64.
///
/// Apple's "Generating a signature for promotional offers" and app-store-server-library's
/// `PromotionalOfferSignatureCreator` describe it. Failures are ``AppleClientSecret/Failure``'s codes.
public struct PromotionalOfferV1Signature: Sendable, Hashable {
    /// The signature: standard base64 of the DER ECDSA signature.
    public let signature: String
    /// The nonce signed, a lowercase UUID; StoreKit needs it with the signature.
    public let nonce: String
    /// The time signed, in milliseconds since the epoch; the offer is valid for 24 hours from it.
    public let timestamp: Int64
    /// The key's ID (StoreKit's `keyIdentifier`).
    public let keyIdentifier: String

    /// The separator between the fields: U+2063 INVISIBLE SEPARATOR.
    public static let separator: Unicode.Scalar = "\u{2063}"

    /// Makes a signature.
    ///
    /// - Parameters:
    ///   - keyID: the In-App Purchase key's ID.
    ///   - bundleID: your app's bundle ID.
    ///   - privateKeyPEM: the contents of the key's `.p8` file (PKCS#8, P-256).
    ///   - productID: the subscription's product ID.
    ///   - offerIdentifier: the promotional offer's ID, from App Store Connect.
    ///   - applicationUsername: the purchase's `appAccountToken` (or the original API's
    ///     `applicationUsername`), lowercased here as Apple's libraries do; empty when there is none.
    ///   - nonce: a UUID (written in lowercase); a new random one by default.
    ///   - timestamp: the time signed, in milliseconds since the epoch; now by default.
    /// - Throws: ``AppleClientSecret/Failure`` with `missing_identifier` (an empty ID),
    ///   `invalid_nonce`, `key_not_pkcs8`, `key_not_p256` or `signing_failed`.
    public static func make(
        keyID: String, bundleID: String, privateKeyPEM: [UInt8], productID: String, offerIdentifier: String,
        applicationUsername: String = "", nonce: String? = nil,
        timestamp: Int64 = Int64((VerificationPolicy.systemClock() * 1000).rounded(.down))
    ) throws(AppleClientSecret.Failure) -> PromotionalOfferV1Signature {
        guard !keyID.isEmpty, !bundleID.isEmpty else {
            throw AppleClientSecret.Failure(.missingIdentifier, "key and bundle IDs are required")
        }
        try AppStoreRequestJWS.require(productID, "the product ID")
        try AppStoreRequestJWS.require(offerIdentifier, "the offer identifier")
        let nonce = try AppStoreNonce.make(nonce)
        let signer = try AppleES256Signer(privateKeyPEM: privateKeyPEM)
        let signed = message(
            bundleID: bundleID, keyID: keyID, productID: productID, offerIdentifier: offerIdentifier,
            applicationUsername: applicationUsername, nonce: nonce, timestamp: timestamp)
        return PromotionalOfferV1Signature(
            signature: AppleES256Signer.standardBase64(try signer.signDER(signed)), nonce: nonce, timestamp: timestamp,
            keyIdentifier: keyID)
    }

    /// The bytes signed: the fields' UTF-8 joined by U+2063 (`E2 81 A3`), `applicationUsername`
    /// and `nonce` lowercased.
    public static func message(
        bundleID: String, keyID: String, productID: String, offerIdentifier: String, applicationUsername: String,
        nonce: String, timestamp: Int64
    ) -> [UInt8] {
        let fields = [
            bundleID, keyID, productID, offerIdentifier, applicationUsername.lowercased(), nonce.lowercased(),
            String(timestamp),
        ]
        return Array(fields.joined(separator: String(separator)).utf8)
    }
}
