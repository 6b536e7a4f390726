@testable import JWTVerify
import JWTVerifyTestSupport
import Testing

/// What `Verifier.outcome` reports beside the verdict: the same verdict as `verify`, what was read
/// on the way, and the token's fingerprint continued from the signature's own SHA-256 state.
@Suite("verification outcomes")
struct OutcomeTests {
    /// The test keys without their JWK `alg`, so one RSA key may verify RS256, PS256 and RS384.
    static let unboundKeys: JWKSet = try! JWKSet(json: Array(TokenFactory.jwksJSON.replacingAll(#","alg":"RS256""#, with: "").replacingAll(#","alg":"ES256""#, with: "").utf8))

    static let verifier = Verifier(
        keys: unboundKeys,
        policy: VerificationPolicy(
            issuers: [TokenFactory.issuer], audiences: [TokenFactory.audience], algorithms: Set(SignatureAlgorithm.all),
            clock: { TokenFactory.now }))

    static func outcome(_ token: String) -> VerificationOutcome {
        Array(token.utf8).withUnsafeBytes { verifier.outcome($0, nonce: nil, at: .clock, fingerprint: true) }
    }

    @Test("SHA-256 tokens: the continued fingerprint is SHA-256 of the whole token, valid or forged")
    func continuedFingerprint() throws {
        let ps256 = TokenFactory.Signer(kid: "rsa-a", algorithm: .ps256, key: TokenFactory.rsa.key)
        for signer in [TokenFactory.rsa, TokenFactory.ec, ps256] {
            let token = TokenFactory.token(payload: TokenFactory.claims(), signer: signer)
            let valid = Self.outcome(token)
            #expect(valid.verified, "\(signer.algorithm)")
            #expect(valid.fingerprint?.bytes == MessageDigest.sha256.hash(Array(token.utf8)), "\(signer.algorithm)")
            // A forged signature of the right size still reaches the digest: same rule.
            var forged = Array(token.utf8)
            forged[forged.count - 3] = forged[forged.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let rejected = forged.withUnsafeBytes { Self.verifier.outcome($0, nonce: nil, at: .clock, fingerprint: true) }
            #expect(forged.withUnsafeBytes { Self.verifier.outcome($0, nonce: nil, at: .clock) }.fingerprint == nil)  // only when asked
            #expect(rejected.error?.reason == .badSignature, "\(signer.algorithm)")
            #expect(rejected.fingerprint?.bytes == MessageDigest.sha256.hash(forged), "\(signer.algorithm)")
        }
    }

    @Test("other digests and early rejections carry no fingerprint (the report hashes the token itself)")
    func noFingerprint() throws {
        let rs384 = TokenFactory.Signer(kid: "rsa-a", algorithm: .rs384, key: TokenFactory.rsa.key)
        let signed384 = Self.outcome(TokenFactory.token(payload: TokenFactory.claims(), signer: rs384))
        #expect(signed384.verified)
        #expect(signed384.fingerprint == nil)
        #expect(Self.outcome(TokenFactory.unsignedToken(kid: "nope")).fingerprint == nil)
        #expect(Self.outcome("a.b").fingerprint == nil)
    }

    @Test("outcome and verify give the same verdict, and a rejected token's claims are read without trust")
    func sameVerdict() throws {
        let expired = TokenFactory.token(payload: TokenFactory.claims(exp: "1600000000"))
        let outcome = Self.outcome(expired)
        #expect(outcome.error?.reason == .expired)
        #expect(throws: VerificationError(.expired)) { try Self.verifier.verify(expired) }
        #expect(outcome.claims.expiresAt == 1_600_000_000)
        #expect(outcome.keyID == "rsa-a")
        #expect(outcome.algorithm == "RS256")
        #expect(!outcome.verified)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
