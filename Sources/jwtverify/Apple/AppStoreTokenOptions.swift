import JWTVerify

/// `jwtverify apple store-token`'s options: the key and the token's lifetime.
struct AppStoreTokenOptions: AppStoreSignerOptions {
    static let name = "store-token"
    var key = AppStoreKeyOptions()
    var lifetime = AppStoreServerAPIToken.maximumLifetime

    /// `--lifetime`'s help, for both subcommands that take it (the help lists it once).
    static let lifetimeHelp =
        "Seconds until exp: client-secret 1 to 15777000 (default 86400);\nstore-token 1 to 3600 (default 3600)."

    static let table = OptionTable<AppStoreTokenOptions>(
        AppStoreKeyOptions.options.map { $0.lifted(\.key) },
        [
            .value(
                "--lifetime", placeholder: "SECONDS",
                help: lifetimeHelp
            ) { options, value, name throws(CommandFailure) in
                let limit = AppStoreServerAPIToken.maximumLifetime
                guard let seconds = Double(value), seconds >= 1, seconds <= limit else {
                    throw .usage("\(name) takes 1 to \(Int(limit)) seconds (Apple's limit is 60 minutes)")
                }
                options.lifetime = seconds
            }
        ])

    func validate() throws(CommandFailure) {}

    func output(privateKeyPEM: [UInt8]) throws(AppleClientSecret.Failure) -> String {
        try AppStoreServerAPIToken.make(
            issuerID: key.issuerID, keyID: key.keyID, bundleID: key.bundleID, privateKeyPEM: privateKeyPEM,
            lifetime: lifetime)
    }
}
