/// `jwtverify apple refresh`'s options: the refresh token to check.
struct AppleRefreshOptions: AppleSubcommandOptions {
    static let name = "refresh"
    var credentials = AppleCredentialOptions()
    var endpoint = AppleEndpointOptions()
    var refreshToken = ""

    static let table = OptionTable<AppleRefreshOptions>(
        AppleCredentialOptions.options.map { $0.lifted(\.credentials) },
        AppleEndpointOptions.options.map { $0.lifted(\.endpoint) },
        [
            .value("--refresh-token", placeholder: "TOKEN", help: "refresh: the refresh token to check.") {
                $0.refreshToken = $1
            }
        ])

    func validate() throws(CommandFailure) {
        guard !refreshToken.isEmpty else { throw .usage("apple refresh needs --refresh-token") }
    }
}
