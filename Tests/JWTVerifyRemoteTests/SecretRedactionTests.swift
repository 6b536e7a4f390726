import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

@testable import JWTVerifyRemote

/// Values holding tokens, secrets or keys print redacted, however they are printed: the fields
/// that are not secret show, the secret bytes never do.
@Suite("secrets never print")
struct SecretRedactionTests {
    /// Every way Swift prints a value.
    static func printings(_ value: some Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var printed = ""
        print(value, to: &printed)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped, printed]
    }

    static func expectRedacted(_ value: some Any, hiding secrets: [String], showing fields: [String], _ what: String) {
        for text in printings(value) {
            for secret in secrets { #expect(!text.contains(secret), "\(what) shows a secret: \(text)") }
            for field in fields { #expect(text.contains(field), "\(what) lacks \(field): \(text)") }
            #expect(text.contains("<redacted>"), "\(what): \(text)")
        }
    }

    /// The base64 lines of a PEM (its key material).
    static func pemLines(_ pem: [UInt8]) -> [String] {
        String(decoding: pem, as: UTF8.self).split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("-----") && $0.count > 8
        }
    }

    @Test("a grant, a refresh status, credentials, the client and a raw nonce print redacted")
    func grantAndFriends() async throws {
        let standIn = try AppleStandIn()
        let pem = try standIn.keyPEM("a")
        let credentials = SignInWithAppleCredentials(
            teamID: AppleStandIn.teamA.team, clientID: AppleStandIn.clientID, keyID: AppleStandIn.teamA.keyID,
            privateKeyPEM: pem)
        let apple = try SignInWithAppleClient(credentials: credentials, baseURL: standIn.baseURL, timeout: 10)
        let code = try standIn.authorize(subject: "001234.aa.0001", rawNonce: "raw-nonce-secret-1")
        let grant = try await apple.exchange(code: code, nonce: .raw("raw-nonce-secret-1"))
        let refreshToken = try #require(grant.refreshToken)
        #expect(grant.accessToken.count > 8 && refreshToken.count > 8)
        Self.expectRedacted(
            grant, hiding: [grant.accessToken, refreshToken], showing: ["Bearer", "3600", "001234.aa.0001"],
            "AppleTokenGrant")
        let status = try await apple.checkRefreshToken(refreshToken)
        guard case .active(let refreshed) = status else {
            Issue.record("a fresh refresh token is not active")
            return
        }
        Self.expectRedacted(
            status, hiding: [refreshed.accessToken, refreshToken, grant.accessToken], showing: ["active", "Bearer"],
            "RefreshTokenStatus")
        #expect(Self.printings(RefreshTokenStatus.revoked).allSatisfy { $0.contains("revoked") })
        let keyLines = Self.pemLines(pem)
        #expect(!keyLines.isEmpty)
        Self.expectRedacted(
            credentials, hiding: keyLines + ["PRIVATE KEY"],
            showing: [AppleStandIn.teamA.team, AppleStandIn.teamA.keyID, AppleStandIn.clientID],
            "SignInWithAppleCredentials")
        Self.expectRedacted(
            apple, hiding: keyLines + ["PRIVATE KEY"], showing: [AppleStandIn.teamA.team, standIn.baseURL],
            "SignInWithAppleClient")
        Self.expectRedacted(
            SignInNonce.raw("raw-nonce-secret-1"), hiding: ["raw-nonce-secret-1"], showing: ["raw"], "SignInNonce")
        #expect(Self.printings(SignInNonce.notUsed).allSatisfy { $0.contains("notUsed") })
    }

    @Test("the client-secret keeper and a private key print without the secret or the key")
    func keeperAndKey() throws {
        let standIn = try AppleStandIn()
        let pem = try standIn.keyPEM("a")
        let credentials = SignInWithAppleCredentials(
            teamID: AppleStandIn.teamA.team, clientID: AppleStandIn.clientID, keyID: AppleStandIn.teamA.keyID,
            privateKeyPEM: pem)
        let keeper = try ClientSecretKeeper(credentials: credentials, lifetime: 3600, clock: { 1_700_000_000 })
        let secret = try keeper.secret()
        let signature = String(secret.split(separator: ".").last ?? "")
        #expect(signature.count > 40)
        Self.expectRedacted(
            keeper, hiding: [secret, signature] + Self.pemLines(pem), showing: [AppleStandIn.teamA.keyID, "3600"],
            "ClientSecretKeeper")
        let key = try EVPPrivateKey.pem(pem)
        Self.expectRedacted(key, hiding: Self.pemLines(pem), showing: ["EC"], "EVPPrivateKey")
    }
}
