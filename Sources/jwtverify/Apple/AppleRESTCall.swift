import JWTVerify
import JWTVerifyRemote
import JWTVerifyTooling

/// One call of `jwtverify apple exchange|refresh|revoke|transfer`: the client made from the
/// options, the call, its JSON object on stdout and its exit status.
struct AppleRESTCall {
    /// A REST subcommand (not `client-secret`).
    let command: AppleCommand
    let privateKeyPEM: [UInt8]

    func run() throws(CommandFailure) -> ExitStatus {
        let client = try makeClient()
        let command = self.command
        return PrintedCall.run {
            do throws(SignInWithAppleError) {
                return try await Self.call(command, client)
            } catch {
                return Self.failure(error)
            }
        }
    }

    /// The client, its identity tokens verified over `--jwks` (a file: those keys; a URL or
    /// preset: fetched) or the endpoint's `/auth/keys`.
    private func makeClient() throws(CommandFailure) -> SignInWithAppleClient {
        let given = command.credentials
        let credentials = SignInWithAppleCredentials(
            teamID: given.teamID, clientID: given.clientID, keyID: given.keyID, privateKeyPEM: privateKeyPEM)
        let policy = VerificationPolicy.appleIdentityToken(audiences: [given.clientID])
        let options = command.endpoint ?? AppleEndpointOptions()
        let source = options.jwks.map(KeySetSource.init(parsing:))
        var keys: JWKSet? = nil
        if case .file(let path)? = source { keys = try KeySetLoader.load(KeySetOptions(sources: [path])) }
        do {
            switch source {
            case .file?:
                return try SignInWithAppleClient(
                    credentials: credentials, baseURL: options.endpoint, timeout: options.timeout,
                    identityTokens: Verifier(keys: keys ?? JWKSet(keys: []), policy: policy))
            case .url(let url)?:
                return try SignInWithAppleClient(
                    credentials: credentials, baseURL: options.endpoint, timeout: options.timeout,
                    identityTokens: RemoteVerifier(keySet: .https(url), policy: policy))
            case nil:
                return try SignInWithAppleClient(
                    credentials: credentials, baseURL: options.endpoint, timeout: options.timeout)
            }
        } catch {
            throw CommandFailure(status: .dataError, message: error.description)
        }
    }

    /// Runs the subcommand's call; its JSON object and status.
    private static func call(
        _ command: AppleCommand, _ client: SignInWithAppleClient
    ) async throws(SignInWithAppleError) -> PrintedCall {
        var out = OutputText()
        out.beginObject()
        var status = ExitStatus.ok
        switch command {
        case .clientSecret, .appStoreSigner, .appStoreServer:
            break
        case .exchange(let options):
            let nonce: SignInNonce = options.nonce.map(SignInNonce.raw) ?? .notUsed
            let grant = try await client.exchange(code: options.code, redirectURI: options.redirectURI, nonce: nonce)
            appendGrant(grant, to: &out)
        case .refresh(let options):
            out.key("active")
            switch try await client.checkRefreshToken(options.refreshToken) {
            case .active(let grant):
                out.bool(true)
                appendGrant(grant, to: &out)
            case .revoked:
                out.bool(false)
                appendError(
                    SignInWithAppleError(
                        .apple, .invalidGrant,
                        detail: "Apple answered invalid_grant: the refresh token is revoked or expired"), to: &out)
                status = .rejected
            }
        case .revoke(let options):
            if options.confirm {
                // The library's revoke-then-check; only its revocation_unconfirmed is a revocation
                // that was taken (every other failure is the call's, printed alone).
                var unconfirmed: SignInWithAppleError? = nil
                do throws(SignInWithAppleError) {
                    try await client.revokeAndConfirm(refreshToken: options.token)
                } catch  where error.code == .revocationUnconfirmed {
                    unconfirmed = error
                }
                out.key("revoked")
                out.bool(true)
                out.key("confirmed")
                out.bool(unconfirmed == nil)
                if let unconfirmed {
                    appendError(unconfirmed, to: &out)
                    status = exitStatus(unconfirmed)
                }
            } else {
                try await client.revoke(options.token, type: options.tokenType)
                out.key("revoked")
                out.bool(true)
            }
        case .transfer(let options):
            if let transferSubject = options.transferSubject {
                let user = try await client.exchangeTransferIdentifier(transferSubject)
                out.member("sub", user.subject)
                out.optionalMember("email", user.email)
                out.optionalMember("is_private_email", user.isPrivateEmail)
            } else {
                out.member(
                    "transfer_sub",
                    try await client.transferIdentifier(forUser: options.user ?? "", toTeam: options.target ?? ""))
            }
        }
        out.endObject()
        return PrintedCall(json: out.string, status: status)
    }

    /// The tokens and `identity`, verify's record of the identity token.
    private static func appendGrant(_ grant: AppleTokenGrant, to out: inout OutputText) {
        out.member("access_token", grant.accessToken)
        out.member("token_type", grant.tokenType)
        out.key("expires_in")
        out.number(grant.expiresIn)
        out.optionalMember("refresh_token", grant.refreshToken)
        out.key("identity")
        out.beginObject()
        let outcome = VerificationOutcome(.success(grant.identity))
        TokenRecordWriter.appendVerdict(outcome, to: &out)
        TokenRecordWriter.appendProviderClaims(
            outcome, rules: .appleIdentityToken(acceptMissingNonceWhenUnsupported: false), to: &out)
        out.endObject()
    }

    /// `error`, `kind`, `detail`, `retryable` (and Apple's status and `Retry-After`, when there were).
    private static func appendError(_ error: SignInWithAppleError, to out: inout OutputText) {
        out.member("error", error.code.rawValue)
        out.member("kind", error.kind.rawValue)
        out.member("detail", error.detail)
        out.key("retryable")
        out.bool(error.isRetryable)
        if let status = error.status {
            out.key("status")
            out.integer(status)
        }
        if let retryAfter = error.retryAfter {
            out.key("retry_after")
            out.number(retryAfter)
        }
    }

    /// A failed call's object and status.
    private static func failure(_ error: SignInWithAppleError) -> PrintedCall {
        var out = OutputText()
        out.beginObject()
        appendError(error, to: &out)
        out.endObject()
        return PrintedCall(json: out.string, status: exitStatus(error))
    }

    /// 1 invalid_grant; 69 retryable; 78 Apple refused our credentials or request; 65 the rest
    /// (an unacceptable answer or identity token).
    static func exitStatus(_ error: SignInWithAppleError) -> ExitStatus {
        if error.isGrantRefused { return .rejected }
        if error.isRetryable { return .unavailable }
        switch error.kind {
        case .apple: return .configuration
        case .identityToken, .response, .configuration, .unavailable: return .dataError
        }
    }
}
