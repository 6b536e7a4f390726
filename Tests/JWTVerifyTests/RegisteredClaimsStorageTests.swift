import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// How ``RegisteredClaims`` keeps its strings: places in the verified payload (the fast scanner's
/// strings), or `String`s (jansson's, and those set through the API), alike to every reader.
@Suite("registered claims storage")
struct RegisteredClaimsStorageTests {
    private func verified(_ payload: String) throws -> RegisteredClaims {
        try TokenFactory.verifier().verify(TokenFactory.token(payload: payload)).claims
    }

    private func expected(sub: String, aud: [String], array: Bool = false, nonce: String? = nil) -> RegisteredClaims {
        var claims = RegisteredClaims()
        claims.issuer = TokenFactory.issuer
        claims.subject = sub
        claims.audience = aud
        claims.audienceIsArray = array
        claims.expiresAt = 1_700_003_600
        claims.issuedAt = 1_700_000_000
        claims.nonce = nonce
        return claims
    }

    private func bytes(_ claims: RegisteredClaims, _ claim: RegisteredClaims.TextClaim) -> [UInt8]? {
        claims.withBytes(of: claim) { $0.map { Array($0) } }
    }

    @Test("the fast scanner's strings are kept in place, equal and hashed as the same claims set as strings")
    func inPlace() throws {
        let nonce = String(repeating: "ab", count: 32)
        let claims = try verified(TokenFactory.claims(extra: #""nonce":"\#(nonce)""#))
        for claim in [RegisteredClaims.TextClaim.issuer, .subject, .nonce, .singleAudience] {
            #expect(claims.isInPlace(claim), "\(claim)")
        }
        let same = expected(sub: "001234.abc.1234", aud: [TokenFactory.audience], nonce: nonce)
        #expect(claims == same)
        #expect(claims.hashValue == same.hashValue)
        #expect(claims.issuer == TokenFactory.issuer)
        #expect(claims.subject == "001234.abc.1234")
        #expect(claims.nonce == nonce)
        #expect(claims.audience == [TokenFactory.audience])
        #expect(!claims.audienceIsList)
        #expect(bytes(claims, .issuer) == Array(TokenFactory.issuer.utf8))
        #expect(bytes(claims, .subject) == Array("001234.abc.1234".utf8))
        #expect(bytes(claims, .nonce) == Array(nonce.utf8))
        #expect(bytes(claims, .singleAudience) == Array(TokenFactory.audience.utf8))
    }

    @Test("strings jansson decoded (escapes, non-ASCII) are Strings, with the same values and bytes")
    func decoded() throws {
        let claims = try verified(
            TokenFactory.claims().replacingOccurrences(of: #""sub":"001234.abc.1234""#, with: #""sub":"a\/b\u00e9""#))
        #expect(!claims.isInPlace(.subject))
        #expect(claims.subject == "a/bé")
        #expect(bytes(claims, .subject) == Array("a/bé".utf8))
        #expect(claims == expected(sub: "a/bé", aud: [TokenFactory.audience]))
    }

    @Test("an array aud, even of one member, stays a list; a missing claim reads as absent")
    func audienceArray() throws {
        let claims = try verified(
            TokenFactory.claims().replacingOccurrences(
                of: #""aud":"com.example.app""#, with: #""aud":["com.example.app"]"#))
        #expect(!claims.has(.singleAudience))
        #expect(claims.audience == [TokenFactory.audience] && claims.audienceIsArray && claims.audienceIsList)
        #expect(claims == expected(sub: "001234.abc.1234", aud: [TokenFactory.audience], array: true))
        #expect(!claims.has(.nonce) && claims.nonce == nil && bytes(claims, .nonce) == nil)
    }

    @Test("setting a claim replaces its place; the others stay where they are")
    func setter() throws {
        var claims = try verified(TokenFactory.claims())
        claims.subject = "other"
        #expect(!claims.isInPlace(.subject) && claims.isInPlace(.issuer))
        #expect(claims.subject == "other" && claims.issuer == TokenFactory.issuer)
        #expect(claims == expected(sub: "other", aud: [TokenFactory.audience]))
        claims.audience = ["x", "y"]
        #expect(!claims.has(.singleAudience) && claims.audience == ["x", "y"] && claims.audienceIsList)
    }

    @Test("equality is by bytes: Unicode-equivalent spellings are different claims")
    func bytesNotEquivalence() {
        var precomposed = RegisteredClaims()
        precomposed.subject = "\u{E9}"
        var decomposed = RegisteredClaims()
        decomposed.subject = "e\u{301}"
        #expect(precomposed.subject == decomposed.subject)  // `String` equality is Unicode equivalence
        #expect(precomposed != decomposed)
        #expect(precomposed == precomposed)
    }

    @Test("records write a claim kept in place as they write the same claim as a String")
    func written() throws {
        let nonce = String(repeating: "0f", count: 32)
        let inPlace = try verified(TokenFactory.claims(extra: #""nonce":"\#(nonce)""#))
        let owned = expected(sub: "001234.abc.1234", aud: [TokenFactory.audience], nonce: nonce)
        #expect(inPlace.isInPlace(.subject) && !owned.isInPlace(.subject))
        func record(_ claims: RegisteredClaims) -> String {
            var text = OutputText()
            text.beginObject()
            text.member("iss", .issuer, of: claims)
            text.member("sub", .subject, of: claims)
            text.member("nonce", .nonce, of: claims)
            text.audience(claims)
            text.member("absent", .singleAudience, of: RegisteredClaims())
            text.endObject()
            return text.string
        }
        let expected =
            #"{"iss":"https://appleid.apple.com","sub":"001234.abc.1234","nonce":"\#(nonce)","aud":"com.example.app","#
            + #""absent":null}"#
        #expect(record(inPlace) == expected)
        #expect(record(owned) == expected)
        var escaped = RegisteredClaims()
        escaped.subject = "a\"b\\c\u{1}"
        var text = OutputText()
        text.member("sub", .subject, of: escaped)
        #expect(text.string == #""sub":"a\"b\\c\u0001""#)
    }
}
