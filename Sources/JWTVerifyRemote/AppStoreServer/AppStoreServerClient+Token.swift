/// How the client makes its bearer tokens.
extension AppStoreServerClient {
    /// The bearer-token maker for `credentials`.
    static func bearerTokenMaker(_ credentials: AppStoreServerCredentials) -> ServerAPITokenKeeper.Maker {
        { _, _ in
            throw AppStoreServerError(
                .configuration, .invalidConfiguration, detail: "no App Store Server API token signer in this build")
        }
    }
}
