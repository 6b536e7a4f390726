import JWTVerify
import JWTVerifyRemote

/// `jwtverify apple`: the Sign in with Apple server side. `client-secret` makes the ES256 secret;
/// `exchange`, `refresh`, `revoke` and `transfer` call Apple's REST endpoints with it, verify the
/// identity tokens Apple returns, and print one JSON object. Each subcommand parses into its own
/// options value (``AppleSubcommandOptions``); `--help` and the documentation list them all.
enum AppleCommand {
    /// `apple client-secret`.
    case clientSecret(AppleClientSecretOptions)
    /// `apple exchange`.
    case exchange(AppleExchangeOptions)
    /// `apple refresh`.
    case refresh(AppleRefreshOptions)
    /// `apple revoke`.
    case revoke(AppleRevokeOptions)
    /// `apple transfer`.
    case transfer(AppleTransferOptions)
    /// `apple store-token` and the other App Store signers: what they sign and with which key.
    case appStoreSigner(any AppStoreSignerOptions)
    /// `apple store CALL`: the App Store Server API.
    case appStoreServer(AppStoreServerOptions)

    /// A subcommand: its name, its options, and how the words after its name become the command.
    private struct Subcommand: Sendable {
        let name: String
        let options: [OptionDescription]
        let parse: @Sendable (ArraySlice<String>) throws(CommandFailure) -> AppleCommand

        init<Options: AppleParsedOptions>(
            _ type: Options.Type, _ make: @escaping @Sendable (Options) -> AppleCommand
        ) {
            name = Options.name
            options = Options.table.descriptions
            parse = { words throws(CommandFailure) in
                make(try Options(parsing: words, siblings: AppleCommand.options))
            }
        }

        /// `apple store`, whose first word is the call.
        init(store: AppStoreServerOptions.Type) {
            name = AppStoreServerOptions.name
            options = AppStoreServerOptions.table.descriptions
            parse = { words throws(CommandFailure) in
                .appStoreServer(try AppStoreServerOptions(parsing: words, siblings: AppleCommand.options))
            }
        }
    }

    /// The subcommands, in the help's order.
    private static let all = [
        Subcommand(AppleClientSecretOptions.self, AppleCommand.clientSecret),
        Subcommand(AppleExchangeOptions.self, AppleCommand.exchange),
        Subcommand(AppleRefreshOptions.self, AppleCommand.refresh),
        Subcommand(AppleRevokeOptions.self, AppleCommand.revoke),
        Subcommand(AppleTransferOptions.self, AppleCommand.transfer),
        Subcommand(AppStoreTokenOptions.self, AppleCommand.appStoreSigner),
        Subcommand(AppStorePromotionalOfferOptions.self, AppleCommand.appStoreSigner),
        Subcommand(AppStoreIntroOfferOptions.self, AppleCommand.appStoreSigner),
        Subcommand(AppStoreAdvancedCommerceOptions.self, AppleCommand.appStoreSigner),
        Subcommand(store: AppStoreServerOptions.self),
    ]

    /// The subcommands' names, in the help's order.
    static let subcommands = all.map(\.name)

    /// Every subcommand's options, each once, for the help, the manual page and the completions.
    static let options = OptionDescription.merged(all.map(\.options))

    static let help = """
        USAGE: jwtverify apple client-secret CREDENTIALS [--lifetime SECONDS]
               jwtverify apple exchange CREDENTIALS --code CODE [--redirect-uri URI] (--nonce RAW | --skip-nonce)
               jwtverify apple refresh CREDENTIALS --refresh-token TOKEN
               jwtverify apple revoke CREDENTIALS --token TOKEN [--token-type refresh_token|access_token] [--confirm]
               jwtverify apple transfer CREDENTIALS --user SUB --target TEAM_ID
               jwtverify apple transfer CREDENTIALS --transfer-sub TRANSFER_SUB
               jwtverify apple store-token APP_STORE_KEY [--lifetime SECONDS]
               jwtverify apple promotional-offer --version 2 APP_STORE_KEY --product-id ID --offer-id ID
                 [--transaction-id ID] [--nonce UUID]
               jwtverify apple promotional-offer --version 1 --key-id ID --key FILE.p8 --bundle-id ID
                 --product-id ID --offer-id ID [--app-account-token TOKEN] [--nonce UUID] [--timestamp MS]
               jwtverify apple intro-offer-eligibility APP_STORE_KEY --product-id ID --allow true|false
                 --transaction-id ID [--nonce UUID]
               jwtverify apple advanced-commerce APP_STORE_KEY --request FILE.json [--nonce UUID]
               jwtverify apple store CALL APP_STORE_KEY [--environment Production|Sandbox] [--endpoint URL] …
          CREDENTIALS: --team-id ID --key-id ID --client-id ID --key FILE.p8
          APP_STORE_KEY: --issuer-id ID --key-id ID --key FILE.p8 --bundle-id ID

        The Sign in with Apple server side, against Apple's REST endpoints (--endpoint), and
        what the App Store wants signed by an In-App Purchase key (APP_STORE_KEY):
          client-secret  print the ES256 client secret (iss team ID, sub client ID, aud
                         https://appleid.apple.com, exp = now + lifetime).
          exchange       exchange the authorization code the app sent (single use, 5 minutes)
                         and verify the identity token Apple returns, with the sign-in's raw
                         nonce (or --skip-nonce when the sign-in used none).
          refresh        check a refresh token (Apple asks: at most once a day): "active"
                         true with a verified identity token, or false (revoked or expired).
          revoke         revoke a token (account deletion); --confirm then checks that the
                         refresh token stopped working, since Apple answers 200 to any token.
          transfer       TN3159 app transfers: --user and --target give the transferring
                         team's transfer identifier; --transfer-sub gives the recipient team's
                         own sub and email for one.
          store-token    print the App Store Server API's bearer token (ES256; iss issuer ID,
                         aud appstoreconnect-v1, bid, exp = now + lifetime, at most 60 minutes).
          promotional-offer  version 2: print the JWS StoreKit takes (aud promotional-offer,
                         productId, offerIdentifier, transactionId, nonce); version 1: print
                         {"signature", "nonce", "timestamp", "keyIdentifier"}, the original
                         ECDSA signature (standard base64 of DER) over the U+2063-joined fields.
          intro-offer-eligibility  print the JWS (aud introductory-offer-eligibility,
                         productId, allowIntroductoryOffer, transactionId, nonce).
          advanced-commerce  print the signed in-app request (aud advanced-commerce-api,
                         request = standard base64 of the file's JSON, nonce).
          store CALL     the App Store Server API; every signed item of the answer verified
                         (bundle ID, --environment, Apple's root or --apple-root) before it
                         is printed as verify's record. CALL: transaction, history (all
                         pages), statuses (--transaction-id), notification-history
                         (--start-date, --end-date), test-notification ([--test-token]), order
                         (--order-id). One JSON object; on failure "error" (Apple's error
                         name with "apple_error_code", a signed item's reason with "item",
                         unauthorized, rate_limited with "retry_after", …). Exit: 1 Apple's
                         error about what was asked, 65 an item or answer not acceptable,
                         69 retryable, 78 Apple refused our bearer token (401).
        Each REST call prints one JSON object on stdout: the tokens and "identity" (verify's
        record of the identity token), "active", "revoked" and "confirmed", "transfer_sub" or
        "sub"; on failure "error" (Apple's code, the identity token's reason, or timeout,
        connection_failed, server_error, rate_limited, response_invalid, response_too_large,
        unexpected_status, revocation_unconfirmed), "detail" and "retryable". The client
        secret is never printed by a REST call.

        OPTIONS:
        \(OptionDescription.helpLines(options))

        EXIT STATUS: 0 done; 1 Apple refused the grant (invalid_grant: a code used or expired,
        a refresh token revoked or expired); 64 usage; 65 Apple's answer or its identity token
        is not acceptable, or the key is unusable; 66 key file missing; 69 Apple unavailable,
        a retry can help (time-out, connection, 5xx, 429, keys unavailable, a revocation not
        yet confirmed); 78 Apple refused our credentials or request (invalid_client and the rest).
        """

    /// The subcommand named by the first word, with its own options parsed from the rest.
    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        let named = words.first.flatMap { first in Self.all.first { Array($0.name.utf8) == Array(first.utf8) } }
        guard let subcommand = named else {
            let what = words.first.map { "unknown apple subcommand \"\($0)\"" } ?? "apple needs a subcommand"
            throw .usage("\(what): \(Self.subcommands.joined(separator: ", "))")
        }
        self = try subcommand.parse(words.dropFirst())
    }

    /// The team, key and client of any Sign in with Apple subcommand (none for the App Store signers).
    var credentials: AppleCredentialOptions {
        switch self {
        case .clientSecret(let options): options.credentials
        case .exchange(let options): options.credentials
        case .refresh(let options): options.credentials
        case .revoke(let options): options.credentials
        case .transfer(let options): options.credentials
        case .appStoreSigner, .appStoreServer: AppleCredentialOptions()
        }
    }

    /// The Apple endpoint, keys and time-out of a REST subcommand; `nil` for `client-secret` and the
    /// App Store signers.
    var endpoint: AppleEndpointOptions? {
        switch self {
        case .clientSecret, .appStoreSigner, .appStoreServer: nil
        case .exchange(let options): options.endpoint
        case .refresh(let options): options.endpoint
        case .revoke(let options): options.endpoint
        case .transfer(let options): options.endpoint
        }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        if case .appStoreSigner(let options) = self { return try options.run() }
        if case .appStoreServer(let options) = self { return try AppStoreServerCall(options: options).run() }
        let credentials = self.credentials
        let pem = try InputFile.readAll(credentials.keyFile, limit: 1 << 16)
        if case .clientSecret(let options) = self {
            do {
                print(
                    try AppleClientSecret.make(
                        teamID: credentials.teamID, keyID: credentials.keyID, clientID: credentials.clientID,
                        privateKeyPEM: pem, lifetime: options.lifetime))
            } catch {
                throw CommandFailure(status: .dataError, message: "\(error)")
            }
            return .ok
        }
        return try AppleRESTCall(command: self, privateKeyPEM: pem).run()
    }
}
