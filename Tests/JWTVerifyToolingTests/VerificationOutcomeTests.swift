import JWTVerify
import JWTVerifyTestSupport
import Testing

@testable import JWTVerifyTooling

/// What the tooling builds from the pipeline's verdict and trace: the same verdict as `verify`,
/// what was read on the way, and for a token the JWS layer rejected its payload read without
/// trust, outside the core.
@Suite("verification outcomes")
struct VerificationOutcomeTests {
    static let verifier = TokenFactory.verifier()

    static func outcome(_ token: String, at time: EvaluationTime = .clock) -> VerificationOutcome {
        Array(token.utf8).withUnsafeBytes { verifier.outcome($0, nonce: nil, at: time) }
    }

    static func forged(_ token: String) -> String {
        var bytes = Array(token.utf8)
        bytes[bytes.count - 3] = bytes[bytes.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The test keys without their JWK `alg`, so one RSA key may verify RS256, PS256 and RS384.
    static let unbound = Verifier(
        keys: try! JWKSet(
            json: Array(
                TokenFactory.jwksJSON.split(separator: #","alg":"RS256""#).joined().split(separator: #","alg":"ES256""#)
                    .joined().utf8)),
        policy: VerificationPolicy(
            issuers: [TokenFactory.issuer], audiences: [TokenFactory.audience], algorithms: Set(SignatureAlgorithm.all),
            clock: { TokenFactory.now }))

    @Test(
        "SHA-256 tokens: the fingerprint continued from the signature's state is SHA-256 of the whole token, valid or forged, alone or batched"
    )
    func continuedFingerprint() throws {
        let ps256 = TokenFactory.Signer(kid: "rsa-a", algorithm: .ps256, key: TokenFactory.rsa.key)
        _ = Self.unbound.keys.keys.first { $0.keyID == "ec-a" }?.key?.buildFixedBaseNow()
        for signer in [TokenFactory.rsa, TokenFactory.ec, ps256] {
            let token = TokenFactory.token(payload: TokenFactory.claims(), signer: signer)
            let forged = Self.forged(token)
            for text in [token, forged] {
                let outcome = Array(text.utf8).withUnsafeBytes {
                    Self.unbound.outcome($0, nonce: nil, at: .clock, fingerprint: true)
                }
                #expect(outcome.verified == (text == token), "\(signer.algorithm)")
                #expect(
                    outcome.fingerprint?.bytes == MessageDigest.sha256.hash(Array(text.utf8)), "\(signer.algorithm)")
                #expect(
                    Array(text.utf8).withUnsafeBytes { Self.unbound.outcome($0, nonce: nil, at: .clock) }.fingerprint
                        == nil)  // only when asked
            }
        }
        // Through the batch stage's grouped ES256 check: 130 tokens, every fingerprint right.
        var batch = TokenBatch()
        let tokens = (0..<130).map {
            TokenFactory.token(payload: TokenFactory.claims(extra: #""n":\#($0)"#), signer: TokenFactory.ec)
        }
        for token in tokens { batch.append(token) }
        var right = 0
        Self.unbound.evaluate(batch, at: .clock, tracing: true, fingerprints: true) { index, _, result, trace in
            if case .success = result, trace.fingerprint?.bytes == MessageDigest.sha256.hash(Array(tokens[index].utf8))
            {
                right += 1
            }
        }
        #expect(right == tokens.count)
    }

    @Test("other digests and early rejections carry no fingerprint (the report hashes the token itself)")
    func noFingerprint() throws {
        let rs384 = TokenFactory.Signer(kid: "rsa-a", algorithm: .rs384, key: TokenFactory.rsa.key)
        let signed384 = Array(TokenFactory.token(payload: TokenFactory.claims(), signer: rs384).utf8).withUnsafeBytes {
            Self.unbound.outcome($0, nonce: nil, at: .clock, fingerprint: true)
        }
        #expect(signed384.verified && signed384.fingerprint == nil)
        for early in [TokenFactory.unsignedToken(kid: "nope"), "a.b"] {
            #expect(
                Array(early.utf8).withUnsafeBytes {
                    Self.unbound.outcome($0, nonce: nil, at: .clock, fingerprint: true)
                }.fingerprint == nil)
        }
    }

    @Test("outcome and verify give the same verdict, and a rejected token's claims come from the walk")
    func sameVerdict() throws {
        let expired = TokenFactory.token(payload: TokenFactory.claims(exp: "1600000000"))
        let outcome = Self.outcome(expired)
        #expect(outcome.error?.reason == .expired)
        #expect(throws: VerificationError(.expired)) { try Self.verifier.verify(expired) }
        #expect(outcome.claims.expiresAt == 1_600_000_000)
        #expect(outcome.keyID == "rsa-a")
        #expect(outcome.algorithm == "RS256")
        #expect(outcome.evaluatedAt == TokenFactory.now)
        #expect(!outcome.verified)
    }

    @Test("a bad signature: the decoded payload read without trust, evaluated at its iat when asked")
    func badSignaturePeek() {
        let forged = Self.forged(TokenFactory.token(payload: TokenFactory.claims(extra: #""email_verified":true"#)))
        let outcome = Self.outcome(forged, at: .issuedAt)
        #expect(outcome.error?.reason == .badSignature)
        #expect(outcome.claims.issuer == TokenFactory.issuer && outcome.claims.issuedAt == 1_700_000_000)
        #expect(outcome.emailVerified == true)
        #expect(outcome.evaluatedAt == 1_700_000_000)
    }

    @Test("a refused header: the payload decoded here from the token and read without trust")
    func refusedHeaderPeek() {
        let outcome = Self.outcome(
            TokenFactory.token(header: #"{"alg":"none","kid":"nope"}"#, payload: TokenFactory.claims()))
        #expect(outcome.error?.reason == .algorithmNone)
        #expect(outcome.algorithm == "none" && outcome.keyID == "nope")
        #expect(outcome.claims.issuer == TokenFactory.issuer)
        #expect(outcome.evaluatedAt == TokenFactory.now)
    }

    @Test("too large and unsplittable tokens: nothing read, no evaluation time")
    func nothingRead() {
        for token in ["a.b", "x." + TokenFactory.token(payload: TokenFactory.claims())] {
            let outcome = Self.outcome(token)
            #expect(outcome.error?.reason == .malformed)
            #expect(outcome.claims.issuer == nil && outcome.evaluatedAt == nil && outcome.algorithm == nil)
        }
    }
}
