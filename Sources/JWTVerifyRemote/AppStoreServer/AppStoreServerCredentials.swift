import JWTVerify

/// What identifies a backend to the App Store Server API: the App Store Connect issuer, the
/// In-App Purchase key that signs its bearer tokens, and the app's bundle ID.
public struct AppStoreServerCredentials: Sendable {
    /// Your issuer ID, from App Store Connect's Keys page (the token's `iss`).
    public var issuerID: String
    /// The In-App Purchase key's ID (the token header's `kid`).
    public var keyID: String
    /// Your app's bundle ID (the token's `bid`; every signed item's `bundleId` must be it).
    public var bundleID: String
    /// The contents of the key's `SubscriptionKey_<keyID>.p8` file (PKCS#8, P-256).
    public var privateKeyPEM: [UInt8]

    /// Credentials from their parts.
    public init(issuerID: String, keyID: String, bundleID: String, privateKeyPEM: [UInt8]) {
        self.issuerID = issuerID
        self.keyID = keyID
        self.bundleID = bundleID
        self.privateKeyPEM = privateKeyPEM
    }
}

/// Credentials print without their key: the issuer, key and bundle IDs, and `<redacted>` for the `.p8`.
extension AppStoreServerCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        Redacted.describe(
            "AppStoreServerCredentials",
            ["issuerID": issuerID, "keyID": keyID, "bundleID": bundleID, "privateKeyPEM": Redacted.marker])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["issuerID": issuerID, "keyID": keyID, "bundleID": bundleID, "privateKeyPEM": Redacted.marker],
            displayStyle: .struct)
    }
}
