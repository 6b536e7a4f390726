import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// A JSON integer beyond 64 bits is valid JSON (RFC 8259) and turns up in real payloads as numeric
/// IDs: a claim the policy does not read never sinks a genuine token for it; registered claims keep
/// their strict types.
@Suite("integers beyond 64 bits")
struct BigIntegerClaimTests {
    static let verifier = TokenFactory.verifier()

    @Test(
        "an unread claim holding a 30-digit integer, alone, nested or in an array: the token verifies and the claim reads as a number",
        arguments: [
            #""account_id":123456789012345678901234567890"#, #""ids":[1,98765432109876543210987654321]"#,
            #""meta":{"big":-123456789012345678901234567890,"ok":true}"#,
        ])
    func unreadClaim(_ extra: String) throws {
        let token = TokenFactory.token(payload: TokenFactory.claims(extra: extra))
        let verified = try Self.verifier.verify(token, at: TokenFactory.now)
        #expect(verified.claims.subject != nil || verified.claims.issuer == TokenFactory.issuer)
        var batch = TokenBatch()
        batch.append(token)
        #expect((try? Self.verifier.verify(batch, at: TokenFactory.now)[0].get()) != nil)
    }

    @Test(
        "registered claims keep their strict types: a NumericDate beyond 2^53 is claim_type, whatever else the payload holds"
    )
    func registeredClaims() throws {
        for payload in [
            TokenFactory.claims(exp: "123456789012345678901234567890"),
            TokenFactory.claims(iat: "123456789012345678901234567890"),
            TokenFactory.claims(exp: #""123""#, extra: #""n":123456789012345678901234567890"#),
        ] {
            #expect(throws: VerificationError(.claimType)) {
                try Self.verifier.verify(TokenFactory.token(payload: payload), at: TokenFactory.now)
            }
        }
    }

    @Test("a widened document: numbers read as doubles, integral ones within 64 bits still integers")
    func widenedDocument() throws {
        let document = try JSONDocument.parse(
            Array(#"{"a":1,"b":123456789012345678901234567890,"c":1.5,"d":-9007199254740993}"#.utf8)
        ).get()
        #expect(document.widensIntegers)
        document.withRoot { root in
            #expect(root.member("a")?.kind == .integer && root.member("a")?.integer == 1)
            #expect(root.member("b")?.kind == .real && root.member("b")?.number == 1.2345678901234568e29)
            #expect(root.member("c")?.kind == .real && root.member("c")?.number == 1.5)
            #expect(root.member("d")?.kind == .integer)
        }
        let strict = try JSONDocument.parse(Array(#"{"a":1,"c":1.0}"#.utf8)).get()
        #expect(!strict.widensIntegers)
        strict.withRoot { root in #expect(root.member("c")?.kind == .real) }
        // Still refused: what is not JSON, and a number beyond a double.
        #expect((try? JSONDocument.parse(Array(#"{"a":123456789012345678901234567890,}"#.utf8)).get()) == nil)
        #expect((try? JSONDocument.parse(Array(#"{"a":1e999}"#.utf8)).get()) == nil)
    }
}
