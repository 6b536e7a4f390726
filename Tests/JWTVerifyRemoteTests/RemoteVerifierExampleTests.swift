import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Testing

/// One per process: Apple's keys are fetched on first use, cached (with a snapshot on disk),
/// refreshed ahead of expiry, and refetched once when a token names a new key.
func makeAppleVerifier(cacheDirectory: String, keysURL: String = KeySetSource.apple.description) -> RemoteVerifier {
    let keys = RemoteKeySet.https(keysURL, snapshotDirectory: cacheDirectory)
    return RemoteVerifier(keySet: keys, policy: .appleIdentityToken(audiences: ["com.example.app"]))
}

func appleUserID(_ verifier: RemoteVerifier, identityToken: String, rawNonce: String) async throws(VerificationError)
    -> String
{
    try await verifier.verify(identityToken, nonce: rawNonce).claims.subject ?? ""
}

@Suite("remote verifier example")
struct RemoteVerifierExampleTests {
    @Test("a remote verifier made as a service would make it works against a live origin, snapshot directory included")
    func example() async throws {

        let origin = try OriginServer()
        try origin.set(["document": "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"])
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-readme-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let verifier = makeAppleVerifier(cacheDirectory: cache, keysURL: origin.keysURL)
        let now = Int(Date().timeIntervalSince1970)
        let claims =
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(now + 600),"iat":\#(now),"sub":"001.u.2","nonce":"\#(Nonce.expectedClaim(forRawNonce: "r"))"}"#
        #expect(
            try await appleUserID(verifier, identityToken: TokenFactory.token(payload: claims), rawNonce: "r")
                == "001.u.2")
    }
}
