import JWTVerify

/// `jwtverify apple client-secret`'s options: the credentials and the secret's lifetime.
struct AppleClientSecretOptions: AppleSubcommandOptions {
    static let name = "client-secret"
    var credentials = AppleCredentialOptions()
    var lifetime = 86_400.0

    static let table = OptionTable<AppleClientSecretOptions>(
        AppleCredentialOptions.options.map { $0.lifted(\.credentials) },
        [
            .value(
                "--lifetime", placeholder: "SECONDS",
                help: AppStoreTokenOptions.lifetimeHelp
            ) { options, value, name throws(CommandFailure) in
                guard let seconds = Double(value), seconds >= 1, seconds <= AppleClientSecret.maximumLifetime else {
                    throw .usage("\(name) takes 1 to \(Int(AppleClientSecret.maximumLifetime)) seconds")
                }
                options.lifetime = seconds
            }
        ])

    func validate() throws(CommandFailure) {}
}
