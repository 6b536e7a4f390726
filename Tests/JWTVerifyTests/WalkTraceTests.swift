import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// One token's verdict and trace through the batch pipeline, with the trace's borrowed payload
/// copied out.
struct Traced {
    var reason: String?
    var verifiedKeyID: String?
    var algorithm: String?
    var keyID: String?
    var claims: RegisteredClaims?
    var emailVerified: Bool?
    var evaluatedAt: Double?
    var stoppedAtJWSLayer = false
    var unverifiedPayload: [UInt8]?
    var header: [UInt8]?
    var payload: [UInt8]?
}

extension Verifier {
    /// `token` as a one-token batch with its trace.
    func traced(_ token: String, nonce: String? = nil, at time: EvaluationTime = .clock) -> Traced {
        var batch = TokenBatch()
        batch.append(token, nonce: nonce)
        var traced = Traced()
        evaluate(batch, at: time, tracing: true) { _, _, result, trace in
            switch result {
            case .success(let token): traced.verifiedKeyID = token.keyID
            case .failure(let error): traced.reason = error.reason.rawValue
            }
            traced.algorithm = trace.algorithm
            traced.keyID = trace.keyID
            traced.claims = trace.claims
            traced.emailVerified = trace.emailVerified
            traced.evaluatedAt = trace.evaluatedAt
            traced.stoppedAtJWSLayer = trace.stoppedAtJWSLayer
            traced.unverifiedPayload = trace.unverifiedPayload.map(Array.init)
            traced.header = trace.header.map(Array.init)
            traced.payload = trace.payload.map(Array.init)
        }
        return traced
    }
}

/// What the walk hands back beside the verdict, stage by stage: nothing when not asked, and
/// when asked exactly what it decoded on the way.
@Suite("walk traces")
struct WalkTraceTests {
    static let verifier = TokenFactory.verifier()

    @Test("a verified token: the header as read, email_verified and the evaluation time")
    func verified() {
        let traced = Self.verifier.traced(
            TokenFactory.token(payload: TokenFactory.claims(extra: #""email_verified":"true""#)))
        #expect(traced.reason == nil)
        #expect(traced.algorithm == "RS256" && traced.keyID == "rsa-a")
        #expect(traced.emailVerified == true)
        #expect(traced.evaluatedAt == TokenFactory.now)
        #expect(traced.claims == nil && !traced.stoppedAtJWSLayer && traced.unverifiedPayload == nil)
    }

    @Test("a bad signature: stopped at the JWS layer, with its decoded payload unread")
    func badSignature() throws {
        let token = TokenFactory.token(payload: TokenFactory.claims())
        var forged = Array(token.utf8)
        forged[forged.count - 3] = forged[forged.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let traced = Self.verifier.traced(String(decoding: forged, as: UTF8.self))
        #expect(traced.reason == "bad_signature")
        #expect(traced.stoppedAtJWSLayer)
        #expect(traced.unverifiedPayload == Array(TokenFactory.claims().utf8))
        #expect(traced.claims == nil && traced.evaluatedAt == nil)
        #expect(traced.algorithm == "RS256" && traced.keyID == "rsa-a")
    }

    @Test("a header the policy refuses: alg, kid and the header as written; the payload decoded for the trace alone")
    func refusedHeader() {
        let traced = Self.verifier.traced(
            TokenFactory.token(header: #"{"alg":"none","kid":"nope"}"#, payload: TokenFactory.claims()))
        #expect(traced.reason == "alg_none")
        #expect(traced.algorithm == "none" && traced.keyID == "nope")
        #expect(traced.header == Array(#"{"alg":"none","kid":"nope"}"#.utf8))
        #expect(traced.stoppedAtJWSLayer && traced.unverifiedPayload == Array(TokenFactory.claims().utf8))
        #expect(traced.payload == nil && traced.claims == nil)
    }

    @Test("a verifier's first token, rejected by its claims: the decoded header and payload, as inspect shows them")
    func decodedSegments() {
        let header = #"{"kid":"rsa-a","alg":"RS256"}"#
        let claims = TokenFactory.claims(exp: "1700000500")
        // A verifier's first token: its header memo has not answered for this header yet.
        let traced = TokenFactory.verifier().traced(TokenFactory.token(header: header, payload: claims))
        #expect(traced.reason == "expired")
        #expect(traced.header == Array(header.utf8) && traced.payload == Array(claims.utf8))
        #expect(!traced.stoppedAtJWSLayer && traced.unverifiedPayload == nil)
    }

    @Test("too large and unsplittable tokens: nothing decoded, nothing to read")
    func nothingDecoded() {
        for token in ["a.b", String(repeating: "a", count: VerificationPolicy.defaultMaxTokenBytes + 1)] {
            let traced = Self.verifier.traced(token)
            #expect(traced.reason == (token.count > 100 ? "too_large" : "malformed"))
            #expect(
                !traced.stoppedAtJWSLayer && traced.algorithm == nil && traced.claims == nil
                    && traced.evaluatedAt == nil)
        }
    }

    @Test("rejected after the payload was read: its claims (leniently when their types fail) and the time")
    func rejectedAfterPayload() throws {
        let expired = Self.verifier.traced(TokenFactory.token(payload: TokenFactory.claims(exp: "1600000000")))
        #expect(expired.reason == "expired")
        #expect(expired.claims?.expiresAt == 1_600_000_000 && expired.evaluatedAt == TokenFactory.now)
        let mistyped = Self.verifier.traced(
            TokenFactory.token(payload: TokenFactory.claims(exp: #""soon""#)), at: .issuedAt)
        #expect(mistyped.reason == "claim_type")
        #expect(mistyped.claims?.issuer == TokenFactory.issuer)
        #expect(mistyped.evaluatedAt == mistyped.claims?.issuedAt)
        #expect(!expired.stoppedAtJWSLayer && !mistyped.stoppedAtJWSLayer)
    }

    @Test("without tracing the trace stays empty")
    func untraced() {
        var batch = TokenBatch()
        batch.append(TokenFactory.token(payload: TokenFactory.claims(exp: "1600000000")))
        var empty = true
        Self.verifier.evaluate(batch, at: .clock, tracing: false) { _, _, _, trace in
            empty =
                trace.algorithm == nil && trace.keyID == nil && trace.claims == nil && trace.evaluatedAt == nil
                && !trace.stoppedAtJWSLayer
        }
        #expect(empty)
    }
}
