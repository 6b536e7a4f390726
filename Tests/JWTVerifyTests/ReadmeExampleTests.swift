// swift-format-ignore-file
// The examples here are the README's own text, compared with it line for line: not reformatted.
import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

// README-EXAMPLE-BEGIN
/// Built once at startup and shared by every request handler (`Verifier` is `Sendable`).
func makeAppleVerifier(keysFile: String) throws -> Verifier {
    Verifier(
        keys: try JWKSet(contentsOfFile: keysFile),  // Apple's JWKS, fetched from appleid.apple.com/auth/keys
        policy: .appleIdentityToken(audiences: ["com.example.app"]))  // your bundle ID and/or Services ID
}

/// The user's stable Apple ID, if the identity token is genuine, current, meant for this app,
/// and carries the hash of the raw nonce this sign-in started with.
func appleUserID(_ verifier: Verifier, identityToken: String, rawNonce: String) throws(VerificationError) -> String {
    try verifier.verify(identityToken, nonce: rawNonce).claims.subject ?? ""
}
// README-EXAMPLE-END

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's library example is this compiled code, verbatim")
    func exampleIsInReadme() throws {
        #expect(try ReadmeSnippet.isInReadme(sourceFile: #filePath, marker: "README-EXAMPLE", importing: ["JWTVerify"]))
    }

    @Test("the example accepts a fresh token with the right nonce and names the failing check otherwise")
    func exampleWorks() throws {
        let workspace = try TestWorkspace("readme", keysFile: "keys.json")
        let keysFile = workspace.jwks
        let now = Int(Date().timeIntervalSince1970)
        let claims = #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(now + 600),"iat":\#(now - 5),"sub":"001234.user.5678","nonce":"\#(Nonce.expectedClaim(forRawNonce: "n-1"))"}"#
        let verifier = try makeAppleVerifier(keysFile: keysFile.path)
        let token = TokenFactory.token(payload: claims)
        #expect(try appleUserID(verifier, identityToken: token, rawNonce: "n-1") == "001234.user.5678")
        #expect(throws: VerificationError(.nonceMismatch)) { try appleUserID(verifier, identityToken: token, rawNonce: "n-2") }
    }
}
