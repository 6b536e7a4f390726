/// `jwtverify apple exchange`'s options: the authorization code, its redirect URI, and the
/// sign-in's raw nonce or `--skip-nonce`.
struct AppleExchangeOptions: AppleSubcommandOptions {
    static let name = "exchange"
    var credentials = AppleCredentialOptions()
    var endpoint = AppleEndpointOptions()
    var code = ""
    var redirectURI: String?
    var nonce: String?
    var skipNonce = false

    static let table = OptionTable<AppleExchangeOptions>(
        AppleCredentialOptions.options.map { $0.lifted(\.credentials) },
        AppleEndpointOptions.options.map { $0.lifted(\.endpoint) },
        [
            .value("--code", placeholder: "CODE", help: "exchange: the authorization code.") { $0.code = $1 },
            .value(
                "--redirect-uri", placeholder: "URI",
                help: "exchange: the authorization request's redirect_uri, when it had one."
            ) { $0.redirectURI = $1 },
            .value("--nonce", placeholder: "RAW", help: AppStoreOfferOptions.nonceHelp) { $0.nonce = $1 },
            .flag("--skip-nonce", help: "exchange: the sign-in used no nonce (the token's nonce is not checked).") {
                $0.skipNonce = true
            },
        ])

    func validate() throws(CommandFailure) {
        guard !code.isEmpty else { throw .usage("apple exchange needs --code") }
        guard (nonce != nil) != skipNonce else {
            throw .usage(
                "apple exchange needs --nonce RAW (the sign-in's raw nonce) or --skip-nonce (it used none), not both")
        }
    }
}
