import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerifyRemote

/// Sign in with Apple's grant and error rules in-process: Apple's answers scripted through the
/// client's transport, and what the client sent read back from it.
@Suite("Sign in with Apple's grant and error rules, in-process")
struct SignInWithAppleRulesTests {
    /// Apple's side of the wire: answers in the order scripted, every request and its limits kept.
    final class ScriptedApple: Sendable {
        typealias Answer = Result<HTTPReply, HTTPTransferFailure>
        private let state: Mutex<(answers: [Answer], sent: [(request: HTTPOutgoing, limits: HTTPTransferLimits)])>

        init(_ answers: Answer...) { state = Mutex((answers, [])) }

        /// What the client sent, in order.
        var requests: [HTTPOutgoing] { state.withLock { $0.sent.map(\.request) } }
        /// The limits each request ran under.
        var limits: [HTTPTransferLimits] { state.withLock { $0.sent.map(\.limits) } }

        /// The next scripted answer; a connection failure once the script is used up.
        func answer(_ request: HTTPOutgoing, _ limits: HTTPTransferLimits) -> Answer {
            state.withLock { state in
                state.sent.append((request, limits))
                return state.answers.isEmpty ? .failure(.connection("nothing scripted")) : state.answers.removeFirst()
            }
        }
    }

    static let teamID = "TEAM123456"
    static let rawNonce = "raw-nonce-1"

    /// Identity tokens are checked as Apple's, over the test keys, at ``TokenFactory/now``.
    static let identityVerifier = Verifier(
        keys: TokenFactory.keys,
        policy: VerificationPolicy.appleIdentityToken(audiences: [TokenFactory.audience]).clock { TokenFactory.now })

    /// A client whose secrets are signed by ``TokenFactory/ec`` (key ID `ec-a`) at ``TokenFactory/now``.
    static func client(_ apple: ScriptedApple, timeout: Double = 15, maximumResponseBytes: Int = 256 << 10) throws
        -> SignInWithAppleClient
    {
        try SignInWithAppleClient(
            credentials: SignInWithAppleCredentials(
                teamID: teamID, clientID: TokenFactory.audience, keyID: TokenFactory.ec.kid,
                privateKeyPEM: TokenFactory.ec.privateKeyPEM),
            timeout: timeout, maximumResponseBytes: maximumResponseBytes, identityTokens: identityVerifier,
            clock: { TokenFactory.now }, transport: { request, limits in apple.answer(request, limits) })
    }

    /// An identity token as Apple signs it; `nonce` is the raw nonce whose hash it carries.
    static func identityToken(
        nonce: String? = rawNonce, audience: String = TokenFactory.audience, exp: Int = 1_700_003_600,
        signer: TokenFactory.Signer = TokenFactory.rsa, header: String? = nil
    ) -> String {
        let nonceMember = nonce.map { #","nonce":"\#(Nonce.expectedClaim(forRawNonce: $0))""# } ?? ""
        return TokenFactory.token(
            header: header,
            payload: #"{"iss":"https://appleid.apple.com","aud":"\#(audience)","exp":\#(exp),"iat":1700000000,"#
                + #""sub":"001234.abc.1234"\#(nonceMember)}"#,
            signer: signer)
    }

    /// A reply of `status` with `body` and header fields (lowercased names, as ``HTTPReply`` keeps them).
    static func reply(_ status: Int, _ body: String, headers: [String: String] = ["content-type": "application/json"])
        -> ScriptedApple.Answer
    {
        .success(HTTPReply(status: status, headers: headers, body: Array(body.utf8)))
    }

    /// Apple's 200 to a code exchange, with `members` in place of (or beside) the usual ones.
    static func grant(
        accessToken: String = #""a-access-1""#, expiresIn: String = "3600", refreshToken: String? = #""r-refresh-1""#,
        idToken: String? = nil
    ) -> ScriptedApple.Answer {
        var members = [#""access_token":\#(accessToken)"#, #""token_type":"Bearer""#, #""expires_in":\#(expiresIn)"#]
        if let refreshToken { members.append(#""refresh_token":\#(refreshToken)"#) }
        members.append(#""id_token":\#(idToken ?? "\"\(identityToken())\"")"#)
        return reply(200, "{" + members.joined(separator: ",") + "}")
    }

    /// An `application/x-www-form-urlencoded` body as its fields, in order.
    static func form(_ body: [UInt8]?) -> [(name: String, value: String)] {
        func decode(_ part: Substring) -> String {
            var bytes: [UInt8] = []
            var index = part.utf8.startIndex
            let utf8 = part.utf8
            while index < utf8.endIndex {
                let byte = utf8[index]
                if byte == UInt8(ascii: "%"), let end = utf8.index(index, offsetBy: 3, limitedBy: utf8.endIndex),
                    let value = UInt8(String(decoding: utf8[utf8.index(after: index)..<end], as: UTF8.self), radix: 16)
                {
                    bytes.append(value)
                    index = end
                    continue
                }
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(decoding: body ?? [], as: UTF8.self).split(separator: "&").map { field in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// A request's header fields, names and values as sent.
    static func headers(_ request: HTTPOutgoing) -> [String] { request.headers.map { "\($0.name): \($0.value)" } }

    static func failure<T>(_ call: () async throws -> T) async -> SignInWithAppleError? {
        await SignInWithAppleClientTests.failure(call)
    }

    @Test("exchange: POST /auth/token with the form fields in order, a client secret that verifies, no redirects")
    func exchangeRequest() async throws {
        let apple = ScriptedApple(Self.grant(), Self.grant())
        let client = try Self.client(apple, timeout: 7, maximumResponseBytes: 4096)
        _ = try await client.exchange(
            code: "c-code 1&2", redirectURI: "https://example.com/callback", nonce: .raw(Self.rawNonce))
        let request = try #require(apple.requests.first)
        #expect(request.method == "POST" && request.url == "https://appleid.apple.com/auth/token")
        #expect(
            Self.headers(request) == ["Content-Type: application/x-www-form-urlencoded", "Accept: application/json"])
        let fields = Self.form(request.body)
        #expect(
            fields.map(\.name) == ["client_id", "client_secret", "grant_type", "code", "redirect_uri"])
        #expect(fields[0].value == TokenFactory.audience && fields[2].value == "authorization_code")
        #expect(fields[3].value == "c-code 1&2" && fields[4].value == "https://example.com/callback")
        // The percent-encoding is on the wire: the code's space and ampersand do not split the form.
        #expect(String(decoding: request.body ?? [], as: UTF8.self).contains("&code=c-code+1%262&"))
        // The client secret: ES256 by the .p8 key, iss the team, sub the client, aud Apple, a day long.
        let secretPolicy = VerificationPolicy(
            issuers: [Self.teamID], audiences: ["https://appleid.apple.com"], algorithms: [.es256],
            clock: { TokenFactory.now })
        let secret = try Verifier(keys: TokenFactory.keys, policy: secretPolicy).verify(fields[1].value)
        #expect(secret.algorithm == .es256 && secret.keyID == TokenFactory.ec.kid)
        #expect(secret.claims.subject == TokenFactory.audience)
        #expect(secret.claims.issuedAt == TokenFactory.now && secret.claims.expiresAt == TokenFactory.now + 86_400)
        let limits = try #require(apple.limits.first)
        #expect(limits.maximumRedirects == 0 && limits.totalTimeout == 7 && limits.connectTimeout == 7)
        #expect(limits.maximumBytes == 4096)
        // Without a redirect URI the field is absent; the same secret serves the second call.
        _ = try await client.exchange(code: "c-2", nonce: .raw(Self.rawNonce))
        let second = Self.form(apple.requests.last?.body)
        #expect(second.map(\.name) == ["client_id", "client_secret", "grant_type", "code"])
        #expect(second[1].value == fields[1].value && client.clientSecretsMade == 1)
    }

    @Test("exchange: the grant's tokens, and the identity token verified with the raw nonce's hash")
    func exchangeGrant() async throws {
        let apple = ScriptedApple(Self.grant())
        let grant = try await Self.client(apple).exchange(code: "c", nonce: .raw(Self.rawNonce))
        #expect(grant.accessToken == "a-access-1" && grant.tokenType == "Bearer" && grant.expiresIn == 3600)
        #expect(grant.refreshToken == "r-refresh-1")
        #expect(grant.identity.claims.subject == "001234.abc.1234" && grant.identity.keyID == TokenFactory.rsa.kid)
        #expect(grant.identity.claims.nonce == Nonce.expectedClaim(forRawNonce: Self.rawNonce))
    }

    @Test("a refresh check: grant_type=refresh_token; active without a refresh token in the answer")
    func refreshCheck() async throws {
        let apple = ScriptedApple(Self.grant(refreshToken: nil, idToken: "\"\(Self.identityToken(nonce: nil))\""))
        guard case .active(let grant) = try await Self.client(apple).checkRefreshToken("r-refresh-1") else {
            Issue.record("a refresh check Apple answered 200 is not active")
            return
        }
        #expect(grant.refreshToken == nil && grant.accessToken == "a-access-1" && grant.identity.claims.nonce == nil)
        let fields = Self.form(apple.requests.first?.body)
        #expect(fields.map(\.name) == ["client_id", "client_secret", "grant_type", "refresh_token"])
        #expect(fields[2].value == "refresh_token" && fields[3].value == "r-refresh-1")
        #expect(apple.requests.first?.url == "https://appleid.apple.com/auth/token")
    }

    /// An exchange answer that breaks the grant's rules, named for the test's report.
    struct MalformedGrant: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let answer: ScriptedApple.Answer
        init(_ name: String, _ answer: ScriptedApple.Answer) {
            testDescription = name
            self.answer = answer
        }
    }

    /// Exchange answers with a member missing, empty or of another type.
    static let malformedGrants = [
        MalformedGrant("access_token null", grant(accessToken: "null")),
        MalformedGrant("access_token a number", grant(accessToken: "5")),
        MalformedGrant("access_token empty", grant(accessToken: #""""#)),
        MalformedGrant("expires_in a string", grant(expiresIn: #""3600""#)),
        MalformedGrant("expires_in null", grant(expiresIn: "null")),
        MalformedGrant("no refresh_token", grant(refreshToken: nil)),
        MalformedGrant("refresh_token an array", grant(refreshToken: "[]")),
        MalformedGrant("id_token null", grant(idToken: "null")),
        MalformedGrant("id_token an object", grant(idToken: "{}")),
        MalformedGrant(
            "no access_token",
            reply(200, #"{"token_type":"Bearer","expires_in":3600,"refresh_token":"r","id_token":"x"}"#)),
        MalformedGrant("no id_token", reply(200, #"{"access_token":"a","expires_in":3600,"refresh_token":"r"}"#)),
    ]

    @Test(
        "a grant missing access_token, expires_in, id_token or refresh_token, or one of another type: response_invalid",
        arguments: SignInWithAppleRulesTests.malformedGrants)
    func missingOrWrongType(_ malformed: MalformedGrant) async throws {
        let error = try #require(
            await Self.failure {
                try await Self.client(ScriptedApple(malformed.answer)).exchange(code: "c", nonce: .raw(Self.rawNonce))
            })
        #expect(error.code == .responseInvalid && error.kind == .response && error.status == 200 && !error.isRetryable)
    }

    @Test("a refresh check's answer needs access_token, expires_in and id_token too (not refresh_token)")
    func refreshCheckNeeds() async throws {
        for answer in [Self.grant(accessToken: "null"), Self.grant(expiresIn: "null"), Self.grant(idToken: "7")] {
            let error = await Self.failure { try await Self.client(ScriptedApple(answer)).checkRefreshToken("r") }
            #expect(error?.code == .responseInvalid && error?.kind == .response)
        }
    }

    @Test("an identity token that fails verification: its reason, and no token handed out (nor named in the error)")
    func identityTokenFails() async throws {
        let expectations: [(String, VerificationError.Reason, SignInNonce)] = [
            (Self.identityToken(nonce: "another"), .nonceMismatch, .raw(Self.rawNonce)),
            (Self.identityToken(nonce: nil), .nonceMissing, .raw(Self.rawNonce)),
            (Self.identityToken(audience: "com.example.other"), .audienceMismatch, .notUsed),
            (Self.identityToken(exp: 1_700_000_100), .expired, .raw(Self.rawNonce)),
            // Signed by rsa-b, naming rsa-a: the signature does not verify.
            (
                Self.identityToken(signer: TokenFactory.rsaB, header: #"{"kid":"rsa-a","alg":"RS256"}"#),
                .badSignature, .raw(Self.rawNonce)
            ),
        ]
        for (token, reason, nonce) in expectations {
            let apple = ScriptedApple(Self.grant(idToken: "\"\(token)\""))
            let error = try #require(
                await Self.failure { try await Self.client(apple).exchange(code: "c", nonce: nonce) })
            #expect(error.kind == .identityToken && error.verificationError?.reason == reason, "\(reason): \(error)")
            #expect(error.code.rawValue == reason.rawValue && !error.isRetryable)
            #expect(!error.description.contains("a-access-1") && !error.description.contains("r-refresh-1"))
        }
        // A refresh check whose identity token fails is that failure, never `revoked`.
        let apple = ScriptedApple(Self.grant(refreshToken: nil, idToken: "\"\(Self.identityToken(audience: "x"))\""))
        let error = await Self.failure { try await Self.client(apple).checkRefreshToken("r") }
        #expect(error?.kind == .identityToken && error?.verificationError?.reason == .audienceMismatch)
    }

    @Test(
        "invalid_grant: a refresh check says revoked, an exchange throws it; other OAuth errors are thrown as they are")
    func oauthErrors() async throws {
        let invalidGrant = Self.reply(400, #"{"error":"invalid_grant","error_description":"The code has expired"}"#)
        guard case .revoked = try await Self.client(ScriptedApple(invalidGrant)).checkRefreshToken("r") else {
            Issue.record("invalid_grant is not revoked")
            return
        }
        let exchange = try #require(
            await Self.failure {
                try await Self.client(ScriptedApple(invalidGrant)).exchange(code: "c", nonce: .notUsed)
            })
        #expect(exchange.code == .invalidGrant && exchange.kind == .apple && exchange.status == 400)
        #expect(exchange.isGrantRefused && !exchange.isRetryable)
        let invalidClient = Self.reply(400, #"{"error":"invalid_client"}"#)
        let check = try #require(
            await Self.failure { try await Self.client(ScriptedApple(invalidClient)).checkRefreshToken("r") })
        #expect(check.code == .invalidClient && check.kind == .apple && !check.isGrantRefused && !check.isRetryable)
        // A 400 without an OAuth error is not Apple's contract.
        let bare = try #require(
            await Self.failure { try await Self.client(ScriptedApple(Self.reply(400, "{}"))).checkRefreshToken("r") })
        #expect(bare.code == .unexpectedStatus && bare.kind == .response && bare.status == 400)
    }

    @Test("429 with Retry-After is rate_limited and retryable after it; 500 and 503 are server_error, retryable")
    func unavailable() async throws {
        let expectations: [(ScriptedApple.Answer, SignInWithAppleError.Code, Int, Double?)] = [
            (Self.reply(429, "", headers: ["retry-after": "30"]), .rateLimited, 429, 30),
            (Self.reply(429, ""), .rateLimited, 429, nil),
            (Self.reply(500, "<html>oops</html>", headers: ["content-type": "text/html"]), .serverError, 500, nil),
            (Self.reply(503, "", headers: ["retry-after": " 120 "]), .serverError, 503, 120),
        ]
        for (answer, code, status, retryAfter) in expectations {
            let error = try #require(
                await Self.failure { try await Self.client(ScriptedApple(answer)).checkRefreshToken("r") })
            #expect(error.code == code && error.kind == .unavailable && error.isRetryable, "\(status): \(error)")
            #expect(error.status == status && error.retryAfter == retryAfter, "\(status): \(error)")
        }
    }

    @Test("no usable answer: a time-out, a broken connection, a body over the cap, a redirect")
    func transportFailures() async throws {
        let expectations: [(ScriptedApple.Answer, SignInWithAppleError.Code, SignInWithAppleError.Kind)] = [
            (.failure(.timedOut(15)), .timeout, .unavailable), (.failure(.stalled(15)), .timeout, .unavailable),
            (.failure(.connection("refused")), .connectionFailed, .unavailable),
            (.failure(.tooLarge(4096)), .responseTooLarge, .response),
            (.failure(.headersTooLarge(65_536)), .responseTooLarge, .response),
            (.failure(.redirectRefused("redirect refused")), .unexpectedStatus, .response),
            // A redirect handed back as it came (the client follows none): not the contract either.
            (Self.reply(302, "", headers: ["location": "https://elsewhere.example/"]), .unexpectedStatus, .response),
        ]
        for (answer, code, kind) in expectations {
            let error = try #require(
                await Self.failure { try await Self.client(ScriptedApple(answer)).exchange(code: "c", nonce: .notUsed) }
            )
            #expect(error.code == code && error.kind == kind && error.isRetryable == (kind == .unavailable), "\(error)")
        }
    }

    @Test("a 200 whose body is not a JSON object: HTML, cut JSON, an array, nothing")
    func notJSON() async throws {
        let bodies: [(String, String, String)] = [
            ("<html>Maintenance</html>", "text/html; charset=utf-8", "24 octets, text/html"),
            (#"{"access_token":"a-"#, "application/json", "19 octets, application/json"),
            ("[]", "application/json", "2 octets, application/json"),
            ("", "application/json", "0 octets, application/json"),
        ]
        for (body, type, description) in bodies {
            let apple = ScriptedApple(Self.reply(200, body, headers: ["content-type": type]))
            let error = try #require(
                await Self.failure { try await Self.client(apple).exchange(code: "c", nonce: .notUsed) })
            #expect(error.code == .responseInvalid && error.kind == .response && error.status == 200, "\(error)")
            #expect(error.detail.contains(description), "\(error.detail)")
        }
    }

    @Test("revoke: POST /auth/revoke with token and token_type_hint; any 200 body is taken")
    func revoke() async throws {
        let apple = ScriptedApple(Self.reply(200, "", headers: [:]), Self.reply(200, "not json", headers: [:]))
        let client = try Self.client(apple)
        try await client.revoke("r-refresh-1")
        try await client.revoke("a-access-1", type: .accessToken)
        #expect(apple.requests.map(\.url) == Array(repeating: "https://appleid.apple.com/auth/revoke", count: 2))
        let fields = apple.requests.map { Self.form($0.body) }
        #expect(
            fields.map { $0.map(\.name) }
                == Array(repeating: ["client_id", "client_secret", "token", "token_type_hint"], count: 2))
        #expect(fields[0][2].value == "r-refresh-1" && fields[0][3].value == "refresh_token")
        #expect(fields[1][2].value == "a-access-1" && fields[1][3].value == "access_token")
    }

    @Test("TN3159: one client_credentials token for user.migration, sent as a bearer and kept for the next call")
    func transfer() async throws {
        let apple = ScriptedApple(
            Self.reply(200, #"{"access_token":"m-migration-1","token_type":"Bearer","expires_in":3600}"#),
            Self.reply(200, #"{"transfer_sub":"x-transfer-1"}"#),
            Self.reply(200, #"{"sub":"t-user-1","email":"x@privaterelay.appleid.com","is_private_email":"true"}"#))
        let client = try Self.client(apple)
        #expect(try await client.transferIdentifier(forUser: "001234.abc.1234", toTeam: "TEAMBBBBBB") == "x-transfer-1")
        let user = try await client.exchangeTransferIdentifier("x-transfer-1")
        #expect(user.subject == "t-user-1" && user.isPrivateEmail == true)
        let requests = apple.requests
        let paths = ["/auth/token", "/auth/usermigrationinfo", "/auth/usermigrationinfo"]
        #expect(requests.map(\.url) == paths.map { "https://appleid.apple.com" + $0 })
        let token = Self.form(requests[0].body)
        #expect(token.map(\.name) == ["client_id", "client_secret", "grant_type", "scope"])
        #expect(token[2].value == "client_credentials" && token[3].value == "user.migration")
        #expect(!Self.headers(requests[0]).contains { $0.hasPrefix("Authorization") })
        for request in requests.dropFirst() {
            #expect(Self.headers(request).last == "Authorization: Bearer m-migration-1")
        }
        #expect(Self.form(requests[1].body).map(\.name) == ["client_id", "client_secret", "sub", "target"])
        #expect(Self.form(requests[2].body).map { "\($0.name)=\($0.value)" }.last == "transfer_sub=x-transfer-1")
    }
}
