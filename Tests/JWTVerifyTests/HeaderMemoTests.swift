import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The per-thread header memo gives exactly what decoding the header gives: per verifier (each has
/// its own keys and allow-list), for every header text, however the verifiers interleave.
@Suite("header memo")
struct HeaderMemoTests {
    static let signed = TokenFactory.token(payload: TokenFactory.claims())
    static let signedB = TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.rsaB)

    /// The set with only key B, under key A's kid: the header that picks key A in the full set
    /// picks key B here, so a memo shared between the two verifiers would pass A's signature.
    static func impostorSet() throws -> JWKSet {
        let json = TokenFactory.rsaB.jwkJSON.replacingOccurrences(of: #""kid":"rsa-b""#, with: #""kid":"rsa-a""#)
        return try JWKSet(json: Array("{\"keys\":[\(json)]}".utf8))
    }

    @Test("verifiers that share a header text but not keys or algorithms keep their own verdicts, interleaved")
    func perVerifier() throws {
        let full = TokenFactory.verifier()
        let onlyES256 = TokenFactory.verifier(algorithms: [.es256])
        let impostor = Verifier(
            keys: try Self.impostorSet(), issuer: TokenFactory.issuer, audiences: [TokenFactory.audience],
            clock: { TokenFactory.now })
        let noKeys = Verifier(
            keys: JWKSet(keys: []), issuer: TokenFactory.issuer, audiences: [TokenFactory.audience],
            clock: { TokenFactory.now })
        for _ in 0..<3 {
            #expect(TokenFactory.reason(Self.signed, verifier: full) == nil)
            #expect(TokenFactory.reason(Self.signed, verifier: impostor) == "bad_signature")
            #expect(TokenFactory.reason(Self.signed, verifier: onlyES256) == "unsupported_alg")
            #expect(TokenFactory.reason(Self.signed, verifier: noKeys) == "unknown_kid")
            #expect(TokenFactory.reason(Self.signedB, verifier: full) == nil)
            #expect(TokenFactory.reason(Self.signedB, verifier: impostor) == "unknown_kid")
        }
    }

    @Test("a remembered header still reports its alg and kid, and a tampered signature still fails")
    func remembered() throws {
        let verifier = TokenFactory.verifier()
        let first = verifier.traced(Self.signed)
        let second = verifier.traced(Self.signed)
        #expect(first.reason == nil && second.reason == nil)
        #expect(second.algorithm == "RS256" && second.keyID == "rsa-a")
        #expect(second.verifiedKeyID == "rsa-a")
        var tampered = Array(Self.signed.utf8)
        tampered[tampered.count - 3] =
            tampered[tampered.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let rejected = verifier.traced(String(decoding: tampered, as: UTF8.self))
        #expect(rejected.reason == "bad_signature")
        #expect(rejected.algorithm == "RS256" && rejected.keyID == "rsa-a")
    }

    @Test(
        "more header texts than the memo keeps: every one still verifies, and an oversized header is decoded each time")
    func eviction() {
        let verifier = TokenFactory.verifier()
        let tokens = (0..<(HeaderMemo.capacity * 3)).map { n in
            TokenFactory.token(header: #"{"kid":"rsa-a","alg":"RS256","x\#(n)":1}"#, payload: TokenFactory.claims())
        }
        for _ in 0..<2 {
            for token in tokens { #expect(TokenFactory.reason(token, verifier: verifier) == nil) }
        }
        let padding = String(repeating: "p", count: HeaderMemo.longestSegment)
        let large = TokenFactory.token(
            header: #"{"kid":"rsa-a","alg":"RS256","pad":"\#(padding)"}"#, payload: TokenFactory.claims())
        for _ in 0..<2 { #expect(TokenFactory.reason(large, verifier: verifier) == nil) }
    }
}
