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

// README-BATCH-BEGIN
/// The Apple user IDs of a queue's sign-in messages, verified as one batch: `nil` where rejected.
func appleUserIDs(_ verifier: Verifier, messages: [(identityToken: String, rawNonce: String)]) -> [String?] {
    var batch = TokenBatch()
    for message in messages { batch.append(message.identityToken, nonce: message.rawNonce) }
    return verifier.verify(batch).map { result in
        switch result {
        case .success(let token): token.claims.subject
        case .failure: nil  // try? result.get() would drop the reason: error.reason says which check failed
        }
    }
}
// README-BATCH-END

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

    @Test("the README's TokenBatch example is this code: one user ID per message, in order, nil where rejected")
    func batchExample() throws {
        #expect(try ReadmeSnippet.isInReadme(sourceFile: #filePath, marker: "README-BATCH", importing: ["JWTVerify"]))
        let workspace = try TestWorkspace("readme-batch", keysFile: "keys.json")
        let verifier = try makeAppleVerifier(keysFile: workspace.jwks.path)
        let now = Int(Date().timeIntervalSince1970)
        func token(sub: String, exp: Int, nonce: String) -> String {
            TokenFactory.token(payload: #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(exp),"iat":\#(now - 5),"sub":"\#(sub)","nonce":"\#(Nonce.expectedClaim(forRawNonce: nonce))"}"#)
        }
        let messages = [
            (identityToken: token(sub: "001.a", exp: now + 600, nonce: "n-a"), rawNonce: "n-a"),
            (identityToken: token(sub: "001.b", exp: now - 3600, nonce: "n-b"), rawNonce: "n-b"),  // expired
            (identityToken: token(sub: "001.c", exp: now + 600, nonce: "n-c"), rawNonce: "other"),  // nonce_mismatch
            (identityToken: token(sub: "001.d", exp: now + 600, nonce: "n-d"), rawNonce: "n-d"),
        ]
        #expect(appleUserIDs(verifier, messages: messages) == ["001.a", nil, nil, "001.d"])
        #expect(appleUserIDs(verifier, messages: []) == [])
    }
}
