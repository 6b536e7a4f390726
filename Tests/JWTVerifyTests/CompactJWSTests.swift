import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

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

/// The one input rule (``TokenInput``) and the library's strictness about it.
@Suite("what may surround a token")
struct TokenInputTests {
    static func locate(_ text: String, scheme: TokenInput.Scheme = .optional) -> String? {
        let bytes = Array(text.utf8)
        switch bytes.withUnsafeBytes({ TokenInput.locate($0, scheme: scheme) }) {
        case nil: return nil
        case .blank?: return "(blank)"
        case .token(let range)?: return String(decoding: bytes[range], as: UTF8.self)
        }
    }

    @Test("whitespace, a line's end and a Bearer scheme are taken away; what is left is the token or a blank")
    func rule() {
        #expect(Self.locate("a.b.c") == "a.b.c")
        #expect(Self.locate(" a.b.c\n") == "a.b.c" && Self.locate("\ta.b.c\r\n") == "a.b.c")
        #expect(Self.locate("Bearer a.b.c") == "a.b.c" && Self.locate("bEaReR \t a.b.c  ") == "a.b.c")
        #expect(Self.locate("Bearera.b.c") == "Bearera.b.c")  // no space: part of the token
        #expect(
            Self.locate("") == "(blank)" && Self.locate(" \t\r\n") == "(blank)" && Self.locate("Bearer ") == "(blank)")
        #expect(Self.locate("a b") == "a b")  // inner whitespace stays, for the verifier to refuse
        #expect(Self.locate("Basic dXNlcg==", scheme: .required) == nil)
        #expect(
            Self.locate("Bearer a.b.c", scheme: .required) == "a.b.c"
                && Self.locate("Bearer", scheme: .required) == "(blank)")
    }

    @Test("the library stays strict, and names what surrounds a token it refuses")
    func strictLibrary() {
        let valid = TokenFactory.token(payload: TokenFactory.claims())
        let verifier = TokenFactory.verifier()
        #expect(throws: VerificationError(.malformed)) { try verifier.verify(valid + "\n", at: TokenFactory.now) }
        do {
            _ = try verifier.verify(valid + "\n", at: TokenFactory.now)
        } catch {
            #expect(error.detail.hasPrefix("whitespace around the token"), "\(error.detail)")
        }
        do {
            _ = try verifier.verify("Bearer " + valid, at: TokenFactory.now)
        } catch {
            #expect(
                error.reason == .malformed && error.detail.hasPrefix("an authorization scheme before the token"),
                "\(error.detail)")
        }
        #expect((try? verifier.verify(valid, at: TokenFactory.now)) != nil)
    }
}
