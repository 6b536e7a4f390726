import JWTVerifyRemote

/// `jwtverify apple revoke`'s options: the token, its type, and whether to confirm.
struct AppleRevokeOptions: AppleSubcommandOptions {
    static let name = "revoke"
    var credentials = AppleCredentialOptions()
    var endpoint = AppleEndpointOptions()
    var token = ""
    var tokenType = AppleTokenType.refreshToken
    var confirm = false

    static let table = OptionTable<AppleRevokeOptions>(
        AppleCredentialOptions.options.map { $0.lifted(\.credentials) },
        AppleEndpointOptions.options.map { $0.lifted(\.endpoint) },
        [
            .value("--token", placeholder: "TOKEN", help: "revoke: the token to revoke.") { $0.token = $1 },
            .value("--token-type", placeholder: "TYPE", help: "revoke: refresh_token (default) or access_token.") {
                options, value, name throws(CommandFailure) in
                guard let type = AppleTokenType(rawValue: value) else {
                    throw .usage("\(name) takes refresh_token or access_token")
                }
                options.tokenType = type
            },
            .flag("--confirm", help: "revoke: then check that the refresh token no longer works.") {
                $0.confirm = true
            },
        ])

    func validate() throws(CommandFailure) {
        guard !token.isEmpty else { throw .usage("apple revoke needs --token") }
        if confirm, tokenType != .refreshToken {
            throw .usage("--confirm checks a refresh token: it needs --token-type refresh_token")
        }
    }
}
