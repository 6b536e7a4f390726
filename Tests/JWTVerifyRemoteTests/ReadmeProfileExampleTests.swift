// swift-format-ignore-file
// The example here is the DocC article SignInWithApple.md's own text, compared with it line for line: not reformatted.
import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Testing

// README-PROFILE-EXAMPLE-BEGIN
/// Sign in with Apple, server side. The app generated `rawNonce`, sent SHA-256(rawNonce) with its
/// sign-in request, and now posts Apple's identity token and the raw nonce to this server.
struct AppleUser: Sendable {
    let id: String
    let email: String?
    let emailVerified: Bool
}

let appleSignIn = RemoteVerifier(
    keySet: .https(.apple, snapshotDirectory: "/var/cache/example"),
    // RS256, iss https://appleid.apple.com, exp and iat required, Apple's claim rules
    policy: .appleIdentityToken(audiences: ["com.example.app", "com.example.web"]))  // bundle ID and Services ID

func signIn(identityToken: String, rawNonce: String, verifier: RemoteVerifier = appleSignIn) async throws(VerificationError) -> AppleUser {
    let token = try await verifier.verify(identityToken, nonce: rawNonce)
    return AppleUser(
        id: token.claims.subject ?? "",
        email: token.provider.email,
        emailVerified: token.provider.emailVerified ?? false)  // true or "true" from Apple
}
// README-PROFILE-EXAMPLE-END

@Suite("README profile example")
struct ReadmeProfileExampleTests {
    @Test("the README's Sign in with Apple example is this compiled code, and it works against a live origin")
    func example() async throws {
        #expect(try ReadmeSnippet.isInReadme(sourceFile: #filePath, marker: "README-PROFILE-EXAMPLE", importing: ["JWTVerify", "JWTVerifyRemote"], document: "Sources/JWTVerify/JWTVerify.docc/SignInWithApple.md"))

        let origin = try OriginServer()
        try origin.set(["document": "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"])
        let verifier = RemoteVerifier(keySet: .https(origin.keysURL), policy: .appleIdentityToken(audiences: ["com.example.app"]))
        let now = Int(Date().timeIntervalSince1970)
        let claims = #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(now + 600),"iat":\#(now),"sub":"001.u.9","email":"a@privaterelay.appleid.com","email_verified":"true","nonce":"\#(Nonce.expectedClaim(forRawNonce: "r-9"))"}"#
        let user = try await signIn(identityToken: TokenFactory.token(payload: claims), rawNonce: "r-9", verifier: verifier)
        #expect(user.id == "001.u.9")
        #expect(user.emailVerified)
        await #expect(throws: VerificationError(.nonceMismatch)) {
            try await signIn(identityToken: TokenFactory.token(payload: claims), rawNonce: "r-10", verifier: verifier)
        }
    }
}
