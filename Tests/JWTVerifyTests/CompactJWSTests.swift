@testable import JWTVerify
import JWTVerifyTestSupport
import Testing

@Suite("compact serialization")
struct CompactJWSTests {
    private func split(_ token: String) -> Result<CompactJWS, CompactJWS.SplitFailure> {
        Array(token.utf8).withUnsafeBytes { CompactJWS.split($0) }
    }

    @Test("three segments give the ranges; the signing input is header.payload")
    func threeSegments() throws {
        let jws = try split("aa.bbb.c").get()
        #expect(jws.header == 0..<2)
        #expect(jws.payload == 3..<6)
        #expect(jws.signature == 7..<8)
        #expect(jws.signingInput == 0..<6)
        let empty = try split("..").get()
        #expect(empty.header.isEmpty && empty.payload.isEmpty && empty.signature.isEmpty)
    }

    @Test("segment counts other than three", arguments: ["", "a", "a.b", "a.b.c.d", "a.b.c.d.e.f", "......."])
    func wrongCounts(token: String) {
        guard case .failure(.segmentCount(let count)) = split(token) else {
            Issue.record("accepted \(token)")
            return
        }
        #expect(count == token.split(separator: ".", omittingEmptySubsequences: false).count)
    }

    @Test("five segments are a JWE")
    func jwe() {
        guard case .failure(.encrypted) = split("a.b.c.d.e") else {
            Issue.record("not recognised as JWE")
            return
        }
    }

    @Test("a token of a million dots is rejected as malformed without decoding")
    func millionDots() {
        let token = String(repeating: ".", count: 1_000_000)
        let verifier = TokenFactory.verifier()
        let tooLarge = TokenFactory.reason(token, verifier: verifier)
        #expect(tooLarge == "too_large")
        let big = Verifier(keys: TokenFactory.keys, issuer: "i", audiences: ["a"], maxTokenBytes: 2_000_000)
        #expect(TokenFactory.reason(token, verifier: big) == "malformed")
    }
}
