import JWTVerify

/// How the client makes its bearer tokens.
extension AppStoreServerClient {
    /// The bearer-token maker for `credentials`: `AppStoreServerAPIToken` with the In-App Purchase key.
    static func bearerTokenMaker(_ credentials: AppStoreServerCredentials) -> ServerAPITokenKeeper.Maker {
        { now, lifetime in
            try AppStoreServerAPIToken.make(
                issuerID: credentials.issuerID, keyID: credentials.keyID, bundleID: credentials.bundleID,
                privateKeyPEM: credentials.privateKeyPEM, lifetime: lifetime, now: now)
        }
    }
}
