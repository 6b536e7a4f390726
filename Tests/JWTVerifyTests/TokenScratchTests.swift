import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The per-thread buffer walks decode tokens into: lent to one walk at a time, never beyond its
/// limit; tokens too long for it, before and after it has grown, verify as any other.
@Suite("token scratch")
struct TokenScratchTests {
    @Test("one loan at a time, growing to the longest token, never beyond the limit")
    func loans() {
        var scratch = TokenScratch()
        defer { scratch.deallocate() }
        let first = scratch.lend(byteCount: 100)
        #expect((first?.count ?? 0) >= 100)
        #expect(scratch.lend(byteCount: 10) == nil)  // already lent
        scratch.giveBack()
        let grown = scratch.lend(byteCount: 20_000)
        #expect((grown?.count ?? 0) >= 20_000)
        scratch.giveBack()
        #expect((scratch.lend(byteCount: TokenScratch.limit)?.count ?? 0) >= TokenScratch.limit)
        scratch.giveBack()
        #expect(scratch.lend(byteCount: TokenScratch.limit + 1) == nil)  // a temporary buffer's job
        #expect(scratch.lend(byteCount: 0) != nil)
    }

    @Test("tokens on either side of the limit, interleaved, get the verdicts of a fresh verifier")
    func aroundTheLimit() {
        let verifier = Verifier(
            keys: TokenFactory.keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience],
            maxTokenBytes: 1 << 20,
            clock: { TokenFactory.now })
        func padded(_ bytes: Int) -> String {
            TokenFactory.token(
                payload: TokenFactory.claims(extra: #""pad":"\#(String(repeating: "a", count: bytes))""#))
        }
        let small = padded(10)
        let large = padded(TokenScratch.limit)  // longer than the limit once encoded
        var pad = TokenScratch.limit * 3 / 4  // base64url: 4 characters per 3 octets
        var edge = padded(pad)
        while edge.utf8.count > TokenScratch.limit {  // just under the limit
            pad -= 12
            edge = padded(pad)
        }
        #expect(large.utf8.count > TokenScratch.limit)
        #expect(edge.utf8.count <= TokenScratch.limit && edge.utf8.count > TokenScratch.limit - 1024)
        var tampered = Array(large.utf8)
        tampered[tampered.count - 5] =
            tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let tamperedLarge = String(decoding: tampered, as: UTF8.self)
        for _ in 0..<3 {
            #expect(TokenFactory.reason(small, verifier: verifier) == nil)
            #expect(TokenFactory.reason(large, verifier: verifier) == nil)
            #expect(TokenFactory.reason(tamperedLarge, verifier: verifier) == "bad_signature")
            #expect(TokenFactory.reason(edge, verifier: verifier) == nil)
            #expect(TokenFactory.reason(small, nonce: "n", verifier: verifier) == "nonce_missing")
        }
    }
}
