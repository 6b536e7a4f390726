import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Synchronization
import Testing

/// Apple's REST contract through the library, against the strict stand-in on 127.0.0.1.
@Suite("Sign in with Apple's REST client against the stand-in")
struct SignInWithAppleClientTests {
    static func client(
        _ standIn: AppleStandIn, key: String = "a", team: (team: String, keyID: String) = AppleStandIn.teamA,
        timeout: Double = 10,
        secretLifetime: Double = 86_400, clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) throws -> SignInWithAppleClient {
        try SignInWithAppleClient(
            credentials: SignInWithAppleCredentials(
                teamID: team.team, clientID: AppleStandIn.clientID, keyID: team.keyID,
                privateKeyPEM: try standIn.keyPEM(key)),
            baseURL: standIn.baseURL, timeout: timeout, secretLifetime: secretLifetime, clock: clock)
    }

    /// The ``SignInWithAppleError`` `call` throws, or nil when it succeeds (any other error is an issue).
    static func failure<T>(_ call: () async throws -> T) async -> SignInWithAppleError? {
        do {
            _ = try await call()
            return nil
        } catch let error as SignInWithAppleError {
            return error
        } catch {
            Issue.record("not a SignInWithAppleError: \(error)")
            return nil
        }
    }

    @Test("exchange: the tokens and the verified identity; a refresh check is active; one client secret for every call")
    func exchangeAndRefresh() async throws {
        let standIn = try AppleStandIn()
        let apple = try Self.client(standIn)
        let code = try standIn.authorize(
            subject: "001234.aa.0001", rawNonce: "raw-nonce-1", email: "x@privaterelay.appleid.com")
        let grant = try await apple.exchange(code: code, nonce: .raw("raw-nonce-1"))
        #expect(grant.identity.claims.subject == "001234.aa.0001")
        #expect(grant.identity.claims.nonce == Nonce.expectedClaim(forRawNonce: "raw-nonce-1"))
        #expect(grant.identity.provider(as: AppleIdentityClaims.self)?.isPrivateEmail == true)
        #expect(grant.expiresIn == 3600 && !grant.accessToken.isEmpty)
        let refreshToken = try #require(grant.refreshToken)
        guard case .active(let refreshed) = try await apple.checkRefreshToken(refreshToken) else {
            Issue.record("a fresh refresh token is not active")
            return
        }
        #expect(refreshed.identity.claims.subject == "001234.aa.0001" && refreshed.refreshToken == nil)
        #expect(try standIn.stats().secrets == 1)
        #expect(apple.clientSecretsMade == 1)
    }

    @Test("a code works once, for five minutes, with its own redirect_uri: invalid_grant otherwise, not retryable")
    func codeRules() async throws {
        let standIn = try AppleStandIn()
        let apple = try Self.client(standIn)
        let code = try standIn.authorize(subject: "s1", rawNonce: "n")
        _ = try await apple.exchange(code: code, nonce: .raw("n"))
        let twice = try #require(await Self.failure { try await apple.exchange(code: code, nonce: .raw("n")) })
        #expect(
            twice.code == .invalidGrant && twice.kind == .apple && twice.status == 400 && twice.isGrantRefused
                && !twice.isRetryable)
        let old = try standIn.authorize(subject: "s1", rawNonce: "n")
        try standIn.age(code: old, seconds: 301)
        #expect(await Self.failure { try await apple.exchange(code: old, nonce: .raw("n")) }?.code == .invalidGrant)
        let web = try standIn.authorize(subject: "s1", rawNonce: "n", redirectURI: "https://example.com/callback")
        #expect(await Self.failure { try await apple.exchange(code: web, nonce: .raw("n")) }?.code == .invalidGrant)
        let webAgain = try standIn.authorize(subject: "s1", rawNonce: "n", redirectURI: "https://example.com/callback")
        let grant = try await apple.exchange(
            code: webAgain, redirectURI: "https://example.com/callback", nonce: .raw("n"))
        #expect(grant.identity.claims.subject == "s1")
    }

    @Test("the identity token decides: a wrong raw nonce, a bad signature or another audience hand out no tokens")
    func identityToken() async throws {
        let standIn = try AppleStandIn()
        let apple = try Self.client(standIn)
        let wrongNonce = try #require(
            await Self.failure {
                try await apple.exchange(
                    code: try standIn.authorize(subject: "s", rawNonce: "right"), nonce: .raw("wrong"))
            })
        #expect(
            wrongNonce.kind == .identityToken && wrongNonce.code.rawValue == "nonce_mismatch" && !wrongNonce.isRetryable
        )
        #expect(wrongNonce.verificationError?.reason == .nonceMismatch)
        // A sign-in without a nonce says so; a nonce given for it is missing from the token.
        let none = try await apple.exchange(code: try standIn.authorize(subject: "s"), nonce: .notUsed)
        #expect(none.identity.claims.nonce == nil)
        #expect(
            await Self.failure {
                try await apple.exchange(code: try standIn.authorize(subject: "s"), nonce: .raw("n"))
            }?.code.rawValue
                == "nonce_missing")
        try standIn.mode("bad_signature")
        #expect(
            await Self.failure {
                try await apple.exchange(code: try standIn.authorize(subject: "s", rawNonce: "n"), nonce: .raw("n"))
            }?.code.rawValue
                == "bad_signature")
        try standIn.mode("other_audience")
        #expect(
            await Self.failure {
                try await apple.exchange(code: try standIn.authorize(subject: "s", rawNonce: "n"), nonce: .raw("n"))
            }?.code.rawValue
                == "audience_mismatch")
    }

    @Test("a client secret signed by another key is invalid_client; no secret or code appears in any error")
    func foreignSecret() async throws {
        let standIn = try AppleStandIn()
        let apple = try Self.client(standIn, key: "stranger")
        let code = try standIn.authorize(subject: "s", rawNonce: "n")
        let refused = try #require(await Self.failure { try await apple.exchange(code: code, nonce: .raw("n")) })
        #expect(refused.code == .invalidClient && refused.kind == .apple && !refused.isRetryable)
        #expect(!refused.description.contains(code))
        #expect(try standIn.stats().refusedSecrets == 1)
        // Team B's key signs for team B only: the code was made for team A.
        let other = try Self.client(standIn, key: "b", team: AppleStandIn.teamB)
        #expect(await Self.failure { try await other.exchange(code: code, nonce: .raw("n")) }?.code == .invalidGrant)
    }

    @Test("500, 503 with Retry-After, no answer, HTML, cut JSON, a body over the cap, a redirect")
    func unavailableAndUnacceptable() async throws {
        let standIn = try AppleStandIn()
        // A short time-out only where no answer comes: a busy test machine may be slow to deliver one.
        let patient = try Self.client(standIn, timeout: 20)
        let impatient = try Self.client(standIn, timeout: 1)
        let expectations: [(String, SignInWithAppleError.Code, SignInWithAppleError.Kind, Bool)] = [
            ("error500", .serverError, .unavailable, true), ("unavailable503", .serverError, .unavailable, true),
            ("hang", .timeout, .unavailable, true), ("html", .responseInvalid, .response, false),
            ("cut", .responseInvalid, .response, false),
            ("huge", .responseTooLarge, .response, false), ("redirect", .unexpectedStatus, .response, false),
        ]
        for (mode, code, kind, retryable) in expectations {
            try standIn.mode(mode)
            // "hang": only the client's 1-s time-out can give `timeout`; the stand-in would close
            // the connection after 30 s without an answer (`connection_failed`).
            let apple = mode == "hang" ? impatient : patient
            let error = try #require(await Self.failure { try await apple.checkRefreshToken("r-unknown") }, "\(mode)")
            #expect(error.code == code && error.kind == kind && error.isRetryable == retryable, "\(mode): \(error)")
            if mode == "unavailable503" { #expect(error.retryAfter == 120 && error.status == 503) }
        }
    }

    @Test("revoke answers for any token; a revoked refresh token fails its check (invalid_grant); revoke-and-confirm")
    func revocation() async throws {
        let standIn = try AppleStandIn()
        let apple = try Self.client(standIn)
        let first = try await apple.exchange(code: try standIn.authorize(subject: "s", rawNonce: "n"), nonce: .raw("n"))
        let refreshToken = try #require(first.refreshToken)
        try await apple.revoke("not-a-token-apple-knows")
        try await apple.revoke(first.accessToken, type: .accessToken)
        #expect(try await apple.checkRefreshToken(refreshToken).isActive)
        try await apple.revoke(refreshToken)
        guard case .revoked = try await apple.checkRefreshToken(refreshToken) else {
            Issue.record("a revoked refresh token is still active")
            return
        }
        let second = try await apple.exchange(
            code: try standIn.authorize(subject: "s", rawNonce: "n"), nonce: .raw("n"))
        let secondToken = try #require(second.refreshToken)
        try await apple.revokeAndConfirm(refreshToken: secondToken)
        guard case .revoked = try await apple.checkRefreshToken(secondToken) else {
            Issue.record("revokeAndConfirm returned, but the refresh token is still active")
            return
        }
    }

    @Test(
        "revokeAndConfirm throws revocation_unconfirmed (unavailable, retryable) when Apple answers 200 but the token still works"
    )
    func unconfirmedRevocation() async throws {
        let standIn = try AppleStandIn()
        let apple = try Self.client(standIn)
        let grant = try await apple.exchange(code: try standIn.authorize(subject: "s", rawNonce: "n"), nonce: .raw("n"))
        let refreshToken = try #require(grant.refreshToken)
        try standIn.mode("revoke_ignored")
        let error = try #require(await Self.failure { try await apple.revokeAndConfirm(refreshToken: refreshToken) })
        #expect(error.code == .revocationUnconfirmed && error.kind == .unavailable && error.isRetryable, "\(error)")
        #expect(
            error.code.rawValue == "revocation_unconfirmed" && error.status == nil
                && !error.detail.contains(refreshToken))
        // The token did keep working; once a revocation takes, the same call returns.
        #expect(try await apple.checkRefreshToken(refreshToken).isActive)
        try standIn.mode("ok")
        try await apple.revokeAndConfirm(refreshToken: refreshToken)
        #expect(try await !apple.checkRefreshToken(refreshToken).isActive)
    }

    @Test("TN3159: the transferring team gets a transfer identifier, the recipient team exchanges it for its own user")
    func transfer() async throws {
        let standIn = try AppleStandIn()
        let from = try Self.client(standIn)
        let to = try Self.client(standIn, key: "b", team: AppleStandIn.teamB)
        let transferSub = try await from.transferIdentifier(forUser: "001234.aa.0001", toTeam: AppleStandIn.teamB.team)
        #expect(transferSub.hasPrefix("x"))
        #expect(
            try await from.transferIdentifier(forUser: "001234.aa.0001", toTeam: AppleStandIn.teamB.team) == transferSub
        )
        let user = try await to.exchangeTransferIdentifier(transferSub)
        #expect(
            user.subject.hasPrefix("t") && user.isPrivateEmail == true
                && user.email?.hasSuffix("@privaterelay.appleid.com") == true)
        #expect(await Self.failure { try await to.exchangeTransferIdentifier("x-unknown") }?.code == .invalidRequest)
        // The transferring team cannot redeem what it made for another team.
        #expect(await Self.failure { try await from.exchangeTransferIdentifier(transferSub) }?.code == .invalidRequest)
        // One migration access token per client, kept: four calls, two token requests.
        #expect(try standIn.stats().requests == 2 + 4 + 1)
    }

    @Test("the client secret is renewed once a tenth of its lifetime is left, and only then")
    func secretRenewal() async throws {
        let standIn = try AppleStandIn()
        let start = VerificationPolicy.systemClock() - 560
        let time = Mutex(start)
        let apple = try Self.client(standIn, secretLifetime: 600, clock: { time.withLock { $0 } })
        #expect(apple.clientSecretsMade == 1)
        time.withLock { $0 = start + 400 }  // 200 s left, more than the 60-s margin: kept
        _ = try await apple.checkRefreshToken("r-unknown")
        #expect(apple.clientSecretsMade == 1)
        time.withLock { $0 = start + 560 }  // 40 s left: renewed
        _ = try await apple.checkRefreshToken("r-unknown")
        #expect(apple.clientSecretsMade == 2)
        #expect(try standIn.stats().secrets == 2)
    }

    @Test("an unusable configuration is refused when the client is made")
    func configuration() throws {
        let standIn = try AppleStandIn()
        func make(baseURL: String = standIn.baseURL, pem: [UInt8]? = nil, teamID: String = "TEAMAAAAAA") throws
            -> SignInWithAppleError?
        {
            do {
                _ = try SignInWithAppleClient(
                    credentials: SignInWithAppleCredentials(
                        teamID: teamID, clientID: AppleStandIn.clientID, keyID: "KEYAAAAAAA",
                        privateKeyPEM: try pem ?? standIn.keyPEM("a")),
                    baseURL: baseURL)
                return nil
            } catch let error as SignInWithAppleError {
                return error
            }
        }
        #expect(try make(baseURL: "http://appleid.apple.com")?.kind == .configuration)
        let notP8 = try make(pem: Array("not a key".utf8))
        #expect(notP8?.code == .invalidConfiguration)
        #expect(
            notP8?.detail == "cannot make a client secret: the key is not a PKCS#8 EC private key (an Apple .p8 file "
                + "holds one, as PEM between -----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY-----)")
        #expect(try make(teamID: "")?.code == .invalidConfiguration)
        #expect(try make() == nil)
    }
}
