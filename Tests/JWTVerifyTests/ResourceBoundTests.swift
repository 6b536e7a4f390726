import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// Hostile sizes and shapes are refused by documented caps, without deep recursion or large allocations.
@Suite("resource bounds")
struct ResourceBoundTests {
    @Test("a key set with 100,000 keys is refused (the cap is 10,000)")
    func manyKeys() {
        let document =
            "{\"keys\":[" + Array(repeating: #"{"kty":"oct","k":"AA"}"#, count: 100_000).joined(separator: ",") + "]}"
        #expect(throws: JWKSetError.self) { try JWKSet(json: Array(document.utf8)) }
        let atCap =
            "{\"keys\":["
            + Array(repeating: #"{"kty":"oct","k":"AA"}"#, count: JWKSet.maximumKeys).joined(separator: ",") + "]}"
        #expect(throws: Never.self) { try JWKSet(json: Array(atCap.utf8)) }
    }

    @Test("a key-set document over 4 MiB is refused before parsing")
    func hugeDocument() {
        let document =
            [UInt8]("{\"keys\":[],\"pad\":\"".utf8) + [UInt8](repeating: 0x61, count: JWKSet.maximumDocumentBytes)
            + Array("\"}".utf8)
        do {
            _ = try JWKSet(json: document)
            Issue.record("accepted an oversized document")
        } catch {
            #expect(error.description.contains("limit"))
        }
    }

    @Test("JSON nested 100,000 deep: malformed in a header, a payload and a key set, without overflowing the stack")
    func deepNesting() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let verifier = Verifier(
            keys: TokenFactory.keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience],
            maxTokenBytes: 1 << 20,
            clock: { TokenFactory.now })
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"rsa-a","x":\#(deep)}"#.utf8)) + ".e30.AAAA"
        #expect(TokenFactory.reason(header, verifier: verifier) == "malformed")
        let payload = TokenFactory.token(payload: TokenFactory.claims(extra: #""x":\#(deep)"#))
        #expect(TokenFactory.reason(payload, verifier: verifier) == "malformed")
        #expect(throws: JWKSetError.self) { try JWKSet(json: Array("{\"keys\":\(deep)}".utf8)) }
    }
}
