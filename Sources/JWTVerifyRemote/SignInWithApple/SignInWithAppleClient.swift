import FoundationEssentials
public import JWTVerify
import Synchronization

/// Apple's Sign in with Apple REST contract for one client: exchange an authorization code, check
/// a refresh token, revoke tokens (what account deletion requires), and move users in an app
/// transfer (TN3159).
///
/// Make one at startup and share it: it is `Sendable`, keeps one client secret (renewed before it
/// expires, never one per request) and verifies every identity token Apple returns through a
/// `RemoteVerifier` (Apple's keys, picked by `kid`; `aud` your client ID), so a call hands out
/// tokens only together with verified identity claims.
///
/// ```swift
/// let apple = try SignInWithAppleClient(credentials: SignInWithAppleCredentials(
///     teamID: "TEAM123456", clientID: "com.example.app", keyID: "KEY1234567", privateKeyPEM: p8Bytes))
/// let grant = try await apple.exchange(code: authorizationCode, nonce: .raw(rawNonce))
/// store(user: grant.identity.claims.subject, refreshToken: grant.refreshToken)
/// ```
///
/// Every call ends by its time-out and throws ``SignInWithAppleError``, whose
/// ``SignInWithAppleError/isRetryable`` says whether trying again can help.
public final class SignInWithAppleClient:
    Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// Apple's base URL.
    public static let appleBaseURL = "https://appleid.apple.com"

    /// The team, client and key.
    public var teamID: String { credentials.teamID }
    public var clientID: String { credentials.clientID }
    /// Where the endpoints live (`/auth/token`, `/auth/revoke`, `/auth/usermigrationinfo`).
    public let baseURL: String
    /// Longest time a call waits for one answer, in seconds.
    public let timeout: Double
    /// Largest answer accepted, in octets.
    public let maximumResponseBytes: Int

    private let credentials: SignInWithAppleCredentials
    private let identityTokens: IdentityTokenVerification
    private let secrets: ClientSecretKeeper
    private let clock: @Sendable () -> Double
    /// What carries each request to Apple and back: ``HTTPTransfer/perform(_:limits:)``, or an
    /// in-process stand-in in unit tests.
    private let transport: Transport
    private let migrationToken = Mutex<(token: String, expiresAt: Double)?>(nil)

    /// The client without its secrets: team, client and key IDs, base URL and time-out; the key,
    /// the client secret and Apple's transfer access token show as `<redacted>`.
    public var description: String {
        Redacted.describe(
            "SignInWithAppleClient",
            ["credentials": credentials, "baseURL": baseURL, "timeout": timeout, "clientSecret": Redacted.marker])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "credentials": credentials, "baseURL": baseURL, "timeout": timeout,
                "maximumResponseBytes": maximumResponseBytes,
                "clientSecret": Redacted.marker, "migrationToken": Redacted.marker,
            ],
            displayStyle: .class)
    }

    /// A client for `credentials` whose identity tokens are verified against remote keys.
    ///
    /// - Parameters:
    ///   - credentials: team ID, client ID, key ID and the `.p8` key.
    ///   - baseURL: Apple's base URL; `https://`, or `http://` to a loopback address (tests).
    ///   - timeout: seconds a call waits for each answer (15 by default).
    ///   - maximumResponseBytes: largest answer accepted (256 KiB by default; Apple's are under 4 KiB).
    ///   - identityTokens: the verifier for returned identity tokens; by default the keys at
    ///     `<baseURL>/auth/keys` (Apple's) under `VerificationPolicy.appleIdentityToken(audiences:)`
    ///     with your client ID as the audience.
    ///   - secretLifetime: seconds each client secret lasts (one day by default; at most
    ///     `AppleClientSecret.maximumLifetime`); renewed when a tenth of it is left.
    ///   - clock: the time source for secrets, the system clock by default.
    /// - Throws: ``SignInWithAppleError/Kind/configuration`` for an unusable key, an empty ID, or
    ///   a base URL that is neither https nor http to loopback.
    public convenience init(
        credentials: SignInWithAppleCredentials, baseURL: String = SignInWithAppleClient.appleBaseURL,
        timeout: Double = 15,
        maximumResponseBytes: Int = 256 << 10, identityTokens: RemoteVerifier? = nil, secretLifetime: Double = 86_400,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) throws(SignInWithAppleError) {
        let base = try Self.checkedBase(baseURL)
        let verifier =
            identityTokens
            ?? RemoteVerifier(
                keySet: .https(base + "/auth/keys"), policy: .appleIdentityToken(audiences: [credentials.clientID]))
        try self.init(
            credentials: credentials, base: base, timeout: timeout, maximumResponseBytes: maximumResponseBytes,
            identityTokens: IdentityTokenVerification(.remote(verifier)),
            secretLifetime: secretLifetime, clock: clock)
    }

    /// A client for `credentials` whose identity tokens are verified by `identityTokens`, over
    /// keys you load yourself (a key file); the other parameters as for remote keys.
    public convenience init(
        credentials: SignInWithAppleCredentials, baseURL: String = SignInWithAppleClient.appleBaseURL,
        timeout: Double = 15,
        maximumResponseBytes: Int = 256 << 10, identityTokens: Verifier, secretLifetime: Double = 86_400,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) throws(SignInWithAppleError) {
        try self.init(
            credentials: credentials, baseURL: baseURL, timeout: timeout, maximumResponseBytes: maximumResponseBytes,
            identityTokens: identityTokens, secretLifetime: secretLifetime, clock: clock,
            transport: HTTPTransfer.perform)
    }

    /// What carries one request to Apple and brings its reply (or why none came).
    typealias Transport = @Sendable (HTTPOutgoing, HTTPTransferLimits) async -> Result<HTTPReply, HTTPTransferFailure>

    /// A client over keys at hand whose requests go through `transport` instead of the network:
    /// the seam unit tests use to script Apple's answers and read what was sent.
    convenience init(
        credentials: SignInWithAppleCredentials, baseURL: String = SignInWithAppleClient.appleBaseURL,
        timeout: Double = 15,
        maximumResponseBytes: Int = 256 << 10, identityTokens: Verifier, secretLifetime: Double = 86_400,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock, transport: @escaping Transport
    ) throws(SignInWithAppleError) {
        try self.init(
            credentials: credentials, base: try Self.checkedBase(baseURL), timeout: timeout,
            maximumResponseBytes: maximumResponseBytes,
            identityTokens: IdentityTokenVerification(.local(identityTokens)), secretLifetime: secretLifetime,
            clock: clock,
            transport: transport)
    }

    private init(
        credentials: SignInWithAppleCredentials, base: String, timeout: Double, maximumResponseBytes: Int,
        identityTokens: IdentityTokenVerification, secretLifetime: Double, clock: @escaping @Sendable () -> Double,
        transport: @escaping Transport = HTTPTransfer.perform
    ) throws(SignInWithAppleError) {
        guard timeout > 0, timeout.isFinite, maximumResponseBytes > 0 else {
            throw SignInWithAppleError(
                .configuration, .invalidConfiguration, detail: "timeout and response cap must be positive")
        }
        guard secretLifetime >= 1, secretLifetime <= AppleClientSecret.maximumLifetime else {
            throw SignInWithAppleError(
                .configuration, .invalidConfiguration,
                detail: "secret lifetime must be 1 to \(Int(AppleClientSecret.maximumLifetime)) seconds")
        }
        self.credentials = credentials
        self.baseURL = base
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
        self.clock = clock
        self.identityTokens = identityTokens
        self.transport = transport
        self.secrets = try ClientSecretKeeper(credentials: credentials, lifetime: secretLifetime, clock: clock)
    }

    /// `baseURL` without a trailing slash, when it is https, or http to loopback.
    private static func checkedBase(_ baseURL: String) throws(SignInWithAppleError) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        guard let url = URL(string: base), HTTPTransfer.isAllowed(url) else {
            throw SignInWithAppleError(
                .configuration, .invalidConfiguration, detail: "base URL must be https://, or http:// to loopback")
        }
        return base
    }

    /// `policy` checking a nonce only when one is given: for refresh checks, whose identity
    /// tokens carry none, and for exchanges whose sign-in said ``SignInNonce/notUsed``.
    fileprivate static func withoutNonce(_ policy: VerificationPolicy) -> VerificationPolicy {
        var relaxed = policy
        relaxed.nonceRequirement = .checkedWhenGiven
        return relaxed
    }

    /// Client secrets made so far (one per lifetime, not one per call).
    public var clientSecretsMade: Int { secrets.made }

    /// Exchanges the authorization code the app sent with its identity token
    /// (`grant_type=authorization_code`), and verifies the identity token Apple returns.
    ///
    /// - Parameters:
    ///   - code: the authorization code (single use, valid five minutes).
    ///   - redirectURI: the `redirect_uri` of the authorization request, when it had one (web sign-ins).
    ///   - nonce: the raw nonce the sign-in started with, or ``SignInNonce/notUsed``.
    /// - Returns: the tokens and the verified identity token.
    /// - Throws: ``SignInWithAppleError``: `invalid_grant` for a used or expired code; the identity
    ///   token's reason when it fails (then no token is handed out).
    public func exchange(code: String, redirectURI: String? = nil, nonce: SignInNonce)
        async throws(SignInWithAppleError) -> AppleTokenGrant
    {
        var form = [("grant_type", "authorization_code"), ("code", code)]
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        let answer = try await post("/auth/token", form, secrets: [code])
        let rawNonce: String? = if case .raw(let raw) = nonce { raw } else { nil }
        return try await grant(answer, requireRefreshToken: true, nonce: rawNonce)
    }

    /// Checks a refresh token (`grant_type=refresh_token`): Apple asks for this at most once a day.
    ///
    /// - Returns: ``RefreshTokenStatus/active(_:)`` with a new access token and the verified
    ///   identity token, or ``RefreshTokenStatus/revoked`` when Apple answers `invalid_grant`.
    /// - Throws: ``SignInWithAppleError`` for every other failure (nothing is concluded about the user).
    public func checkRefreshToken(_ refreshToken: String) async throws(SignInWithAppleError) -> RefreshTokenStatus {
        do {
            let answer = try await post(
                "/auth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
                secrets: [refreshToken])
            return .active(try await grant(answer, requireRefreshToken: false, nonce: nil))
        } catch  where error.isGrantRefused {
            return .revoked
        }
    }

    /// Revokes a token (`/auth/revoke`). Apple answers 200 even for an unknown or already revoked
    /// token, so this confirms only that Apple took the request: ``revokeAndConfirm(refreshToken:)``
    /// also checks that the token stopped working.
    public func revoke(_ token: String, type: AppleTokenType = .refreshToken) async throws(SignInWithAppleError) {
        _ = try await post(
            "/auth/revoke", [("token", token), ("token_type_hint", type.rawValue)], secrets: [token],
            expectsObject: false)
    }

    /// Revokes a refresh token, then checks it: returns when the check fails with `invalid_grant`
    /// (the revocation took).
    ///
    /// - Throws: ``SignInWithAppleError``: ``SignInWithAppleError/Code/revocationUnconfirmed``
    ///   (kind ``SignInWithAppleError/Kind/unavailable``, retryable) when Apple took the
    ///   revocation but the token still works; any failure of the revocation or of the check.
    public func revokeAndConfirm(refreshToken: String) async throws(SignInWithAppleError) {
        try await revoke(refreshToken, type: .refreshToken)
        guard try await !checkRefreshToken(refreshToken).isActive else {
            throw SignInWithAppleError.revocationUnconfirmed
        }
    }

    /// Posts `form` (with the client's ID and secret) to `path` and judges the answer.
    func post(
        _ path: String, _ form: [(String, String)], bearer: String? = nil, secrets extra: [String],
        expectsObject: Bool = true
    ) async throws(SignInWithAppleError) -> AppleAnswer {
        let secret = try secrets.secret()
        var request = HTTPOutgoing(url: baseURL + path)
        request.method = "POST"
        request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        request.setHeader("Accept", "application/json")
        if let bearer { request.setHeader("Authorization", "Bearer " + bearer) }
        request.body = FormEncoding.encode([("client_id", credentials.clientID), ("client_secret", secret)] + form)
        let limits = HTTPTransferLimits(
            connectTimeout: timeout, totalTimeout: timeout, maximumBytes: maximumResponseBytes, maximumRedirects: 0)
        let result = await transport(request, limits)
        return try AppleAnswer.judge(
            result, expectsObject: expectsObject, redacting: [secret] + extra + (bearer.map { [$0] } ?? []))
    }

    /// The grant in `answer`, its identity token verified (with `nonce` when given; else by the
    /// rules without a nonce).
    private func grant(_ answer: AppleAnswer, requireRefreshToken: Bool, nonce: String?)
        async throws(SignInWithAppleError) -> AppleTokenGrant
    {
        let accessToken = try answer.string("access_token")
        let expiresIn = try answer.number("expires_in")
        let refreshToken =
            requireRefreshToken ? try answer.string("refresh_token") : answer.members["refresh_token"]?.stringValue
        let idToken = try answer.string("id_token")
        let identity: VerifiedToken
        do {
            identity = try await identityTokens.verify(idToken, nonce: nonce)
        } catch {
            throw .identityToken(error)
        }
        return AppleTokenGrant(
            accessToken: accessToken, tokenType: answer.members["token_type"]?.stringValue ?? "bearer",
            expiresIn: expiresIn,
            refreshToken: refreshToken, identity: identity)
    }

    /// An access token for the user-migration endpoint (`grant_type=client_credentials`,
    /// `scope=user.migration`), kept until a minute before it expires.
    func migrationAccessToken() async throws(SignInWithAppleError) -> String {
        let now = clock()
        if let kept = migrationToken.withLock({ $0 }), kept.expiresAt - now > 60 { return kept.token }
        let answer = try await post(
            "/auth/token", [("grant_type", "client_credentials"), ("scope", "user.migration")], secrets: [])
        let token = try answer.string("access_token")
        let expiresIn = try answer.number("expires_in")
        migrationToken.withLock { $0 = (token, now + expiresIn) }
        return token
    }
}

/// How a client verifies the identity tokens Apple returns: over remote keys or keys at hand,
/// with its rules as given, and the same keys under the same rules without a required nonce.
private struct IdentityTokenVerification: Sendable {
    let verifier: AnyVerifier
    let withoutNonce: AnyVerifier

    init(_ verifier: AnyVerifier) {
        self.verifier = verifier
        withoutNonce = verifier.with(policy: SignInWithAppleClient.withoutNonce(verifier.policy))
    }

    /// Verifies `token` with `nonce`, or without one under the rules that need none.
    func verify(_ token: String, nonce: String?) async throws(VerificationError) -> VerifiedToken {
        try await (nonce == nil ? withoutNonce : verifier).verify(token, nonce: nonce)
    }
}
