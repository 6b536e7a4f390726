import JWTVerify
import JWTVerifyRemote

/// `jwtverify apple`: the Sign in with Apple server side. `client-secret` makes the ES256 secret;
/// `exchange`, `refresh`, `revoke` and `transfer` call Apple's REST endpoints with it, verify the
/// identity tokens Apple returns, and print one JSON object.
struct AppleCommand {
    /// The subcommands, each with the options it takes besides the credentials.
    enum Subcommand: String, CaseIterable {
        case clientSecret = "client-secret", exchange, refresh, revoke, transfer

        /// The options only this subcommand takes.
        var ownOptions: Set<String> {
            switch self {
            case .clientSecret: ["--lifetime"]
            case .exchange: Self.rest.union(["--code", "--redirect-uri", "--nonce", "--skip-nonce"])
            case .refresh: Self.rest.union(["--refresh-token"])
            case .revoke: Self.rest.union(["--token", "--token-type", "--confirm"])
            case .transfer: Self.rest.union(["--user", "--target", "--transfer-sub"])
            }
        }

        /// What the REST subcommands share: Apple's base URL, the identity tokens' keys, the time-out.
        static let rest: Set<String> = ["--endpoint", "--jwks", "--timeout"]
    }

    static let help = """
        USAGE: jwtverify apple client-secret CREDENTIALS [--lifetime SECONDS]
               jwtverify apple exchange CREDENTIALS --code CODE [--redirect-uri URI] (--nonce RAW | --skip-nonce)
               jwtverify apple refresh CREDENTIALS --refresh-token TOKEN
               jwtverify apple revoke CREDENTIALS --token TOKEN [--token-type refresh_token|access_token] [--confirm]
               jwtverify apple transfer CREDENTIALS --user SUB --target TEAM_ID
               jwtverify apple transfer CREDENTIALS --transfer-sub TRANSFER_SUB
          CREDENTIALS: --team-id ID --key-id ID --client-id ID --key FILE.p8

        The Sign in with Apple server side, against Apple's REST endpoints (--endpoint):
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
        Each REST call prints one JSON object on stdout: the tokens and "identity" (verify's
        record of the identity token), "active", "revoked" and "confirmed", "transfer_sub" or
        "sub"; on failure "error" (Apple's code, the identity token's reason, or timeout,
        connection_failed, server_error, rate_limited, response_invalid, response_too_large,
        unexpected_status, revocation_unconfirmed), "detail" and "retryable". The client
        secret is never printed by a REST call.

        OPTIONS:
        \(table.help)

        EXIT STATUS: 0 done; 1 Apple refused the grant (invalid_grant: a code used or expired,
        a refresh token revoked or expired); 64 usage; 65 Apple's answer or its identity token
        is not acceptable, or the key is unusable; 66 key file missing; 69 Apple unavailable,
        a retry can help (time-out, connection, 5xx, 429, keys unavailable, a revocation not
        yet confirmed); 78 Apple refused our credentials or request (invalid_client and the rest).
        """

    var subcommand = Subcommand.clientSecret
    var teamID = ""
    var keyID = ""
    var clientID = ""
    var keyFile = ""
    var lifetime = 86_400.0
    var endpoint = SignInWithAppleClient.appleBaseURL
    var jwks: String?
    var timeout = 15.0
    var code: String?
    var redirectURI: String?
    var nonce: String?
    var skipNonce = false
    var refreshToken: String?
    var token: String?
    var tokenType = AppleTokenType.refreshToken
    var confirm = false
    var user: String?
    var target: String?
    var transferSubject: String?
    /// The options given, to refuse one the subcommand does not take.
    var given: Set<String> = []

    static let table = OptionTable<AppleCommand>([
        .value("--team-id", placeholder: "ID", help: "Your Apple Developer team ID (the secret's iss).") { $0.teamID = $1 },
        .value("--key-id", placeholder: "ID", help: "The .p8 key's ID (the header's kid).") { $0.keyID = $1 },
        .value("--client-id", placeholder: "ID", help: "The Services ID or bundle ID (the secret's sub; the identity\ntokens' aud).") { $0.clientID = $1 },
        .value("--key", placeholder: "FILE.p8", help: "The private key file, AuthKey_<key ID>.p8.") { $0.keyFile = $1 },
        .value("--lifetime", placeholder: "SECONDS", help: "client-secret: seconds until exp (default 86400, at most 15777000).") {
            options, value, name throws(CommandFailure) in
            guard let seconds = Double(value), seconds >= 1, seconds <= AppleClientSecret.maximumLifetime else {
                throw .usage("\(name) takes 1 to \(Int(AppleClientSecret.maximumLifetime)) seconds")
            }
            options.lifetime = seconds
        },
        .value("--endpoint", placeholder: "URL", help: "Apple's base URL (default https://appleid.apple.com; http:// only to\nloopback).") {
            options, value, name throws(CommandFailure) in
            guard value.hasPrefix("https://") || ["http://127.0.0.1", "http://localhost", "http://[::1]"].contains(where: value.hasPrefix) else {
                throw .usage("\(name) takes an https:// URL, or http:// to a loopback address")
            }
            options.endpoint = value
        },
        .value(
            "--jwks", placeholder: "SRC",
            help: "The identity tokens' keys: a file, an https:// URL, or a preset\n(default: the endpoint's /auth/keys, Apple's own)."
        ) { $0.jwks = $1 },
        .value("--timeout", placeholder: "SECONDS", help: "Longest wait for each answer (default 15).") { options, value, name throws(CommandFailure) in
            guard let seconds = Double(value), seconds > 0, seconds <= 300 else { throw .usage("\(name) takes 0 to 300 seconds") }
            options.timeout = seconds
        },
        .value("--code", placeholder: "CODE", help: "exchange: the authorization code.") { $0.code = $1 },
        .value("--redirect-uri", placeholder: "URI", help: "exchange: the authorization request's redirect_uri, when it had one.") { $0.redirectURI = $1 },
        .value("--nonce", placeholder: "RAW", help: "exchange: the raw nonce the sign-in started with.") { $0.nonce = $1 },
        .flag("--skip-nonce", help: "exchange: the sign-in used no nonce (the token's nonce is not checked).") { $0.skipNonce = true },
        .value("--refresh-token", placeholder: "TOKEN", help: "refresh: the refresh token to check.") { $0.refreshToken = $1 },
        .value("--token", placeholder: "TOKEN", help: "revoke: the token to revoke.") { $0.token = $1 },
        .value("--token-type", placeholder: "TYPE", help: "revoke: refresh_token (default) or access_token.") { options, value, name throws(CommandFailure) in
            guard let type = AppleTokenType(rawValue: value) else { throw .usage("\(name) takes refresh_token or access_token") }
            options.tokenType = type
        },
        .flag("--confirm", help: "revoke: then check that the refresh token no longer works.") { $0.confirm = true },
        .value("--user", placeholder: "SUB", help: "transfer: your team's sub of the user to transfer.") { $0.user = $1 },
        .value("--target", placeholder: "TEAM_ID", help: "transfer: the recipient team.") { $0.target = $1 },
        .value("--transfer-sub", placeholder: "ID", help: "transfer: a transfer identifier to exchange (recipient team).") { $0.transferSubject = $1 },
    ])

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        let names = Subcommand.allCases.map(\.rawValue)
        guard let first = words.first, let subcommand = Subcommand(rawValue: first) else {
            let what = words.first.map { "unknown apple subcommand \"\($0)\"" } ?? "apple needs a subcommand"
            throw .usage("\(what): \(names.joined(separator: ", "))")
        }
        self.subcommand = subcommand
        // Which options were given, for the check below (the table applies them).
        for word in words.dropFirst() where word.hasPrefix("--") { given.insert(String(word.split(separator: "=", maxSplits: 1)[0])) }
        _ = try Self.table.parse(words.dropFirst(), into: &self) { _, operand throws(CommandFailure) in
            throw .usage("unexpected argument \"\(operand)\"")
        }
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty, !keyFile.isEmpty else {
            throw .usage("--team-id, --key-id, --client-id and --key are required")
        }
        let credentials: Set<String> = ["--team-id", "--key-id", "--client-id", "--key"]
        if let stray = given.subtracting(credentials).subtracting(subcommand.ownOptions).sorted().first {
            throw .usage("apple \(subcommand.rawValue) takes no \(stray)")
        }
        try validate()
    }

    /// What each subcommand needs.
    private func validate() throws(CommandFailure) {
        switch subcommand {
        case .clientSecret: break
        case .exchange:
            guard code?.isEmpty == false else { throw .usage("apple exchange needs --code") }
            guard (nonce != nil) != skipNonce else {
                throw .usage("apple exchange needs --nonce RAW (the sign-in's raw nonce) or --skip-nonce (it used none), not both")
            }
        case .refresh:
            guard refreshToken?.isEmpty == false else { throw .usage("apple refresh needs --refresh-token") }
        case .revoke:
            guard token?.isEmpty == false else { throw .usage("apple revoke needs --token") }
            if confirm, tokenType != .refreshToken {
                throw .usage("--confirm checks a refresh token: it needs --token-type refresh_token")
            }
        case .transfer:
            let forward = user != nil || target != nil
            guard forward != (transferSubject != nil) else {
                throw .usage("apple transfer takes --user SUB --target TEAM_ID, or --transfer-sub ID")
            }
            if forward, user?.isEmpty != false || target?.isEmpty != false { throw .usage("apple transfer needs both --user and --target") }
        }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        let pem = try InputFile.readAll(keyFile, limit: 1 << 16)
        if subcommand == .clientSecret {
            do {
                print(try AppleClientSecret.make(teamID: teamID, keyID: keyID, clientID: clientID, privateKeyPEM: pem, lifetime: lifetime))
            } catch {
                throw CommandFailure(status: .dataError, message: "\(error)")
            }
            return .ok
        }
        return try AppleRESTCall(options: self, privateKeyPEM: pem).run()
    }
}
