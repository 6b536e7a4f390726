import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// Claims as a Swift developer reaches for them: `Date`s for the registered times, your own
/// `Decodable` type over the verified payload, and the small API conveniences.
@Suite("claims as Swift types")
struct SwiftClaimsTests {
    struct SessionClaims: Decodable, Equatable {
        let sub: String
        let exp: Date
        let roles: [String]
        let tenant: Tenant
        struct Tenant: Decodable, Equatable {
            let id: Int
            let name: String
        }
    }

    static let payload =
        #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600.5,"iat":1700000000,"nbf":1699999999,"sub":"u-1","roles":["admin","ops"],"tenant":{"id":42,"name":"Zoë"}}"#

    @Test("registered times as Dates, exactly the NumericDates (fractions kept)")
    func dates() throws {
        let token = try TokenFactory.verifier().verify(TokenFactory.token(payload: Self.payload))
        #expect(token.expiresAtDate == Date(timeIntervalSince1970: 1_700_003_600.5))
        #expect(token.claims.expiresAtDate == Date(timeIntervalSince1970: 1_700_003_600.5))
        #expect(token.claims.issuedAtDate == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(token.claims.notBeforeDate == Date(timeIntervalSince1970: 1_699_999_999))
        #expect(RegisteredClaims().issuedAtDate == nil)
    }

    @Test("claims(as:) decodes the verified payload into the caller's type; a mismatch is the decoder's error")
    func decodable() throws {
        let token = try TokenFactory.verifier().verify(TokenFactory.token(payload: Self.payload))
        let session = try token.claims(as: SessionClaims.self)
        #expect(
            session
                == SessionClaims(
                    sub: "u-1", exp: Date(timeIntervalSince1970: 1_700_003_600.5), roles: ["admin", "ops"],
                    tenant: .init(id: 42, name: "Zoë")))
        struct Wrong: Decodable { let roles: Int }
        #expect(throws: DecodingError.self) { try token.claims(as: Wrong.self) }
        // The JSONValue access is still there.
        #expect(token.claim("roles") == .array([.string("admin"), .string("ops")]))
    }

    @Test("JWKSet(json:) takes a String as well as bytes")
    func keySetFromString() throws {
        let fromString = try JWKSet(json: TokenFactory.jwksJSON)
        let fromBytes = try JWKSet(json: Array(TokenFactory.jwksJSON.utf8))
        #expect(fromString.keys.map(\.thumbprint) == fromBytes.keys.map(\.thumbprint))
        #expect(throws: JWKSetError.self) { try JWKSet(json: "not json") }
    }

    @Test("a policy's leeway and size limit stay valid when set after the initializer")
    func validatedSetters() async {
        var policy = VerificationPolicy.appleIdentityToken(audiences: ["a"])
        policy.leeway = 5
        policy.maxTokenBytes = 100
        #expect(policy.leeway == 5 && policy.maxTokenBytes == 100)
        await #expect(processExitsWith: .failure) {
            var policy = VerificationPolicy.appleIdentityToken(audiences: ["a"])
            policy.leeway = -1e9
        }
        await #expect(processExitsWith: .failure) {
            var policy = VerificationPolicy.generic(issuer: "i", audiences: ["a"])
            policy.leeway = .infinity
        }
        await #expect(processExitsWith: .failure) {
            var policy = VerificationPolicy.generic(issuer: "i", audiences: ["a"])
            policy.maxTokenBytes = -1
        }
    }

    @Test("detail strings read as sentences: quoted audiences, durations in whole seconds from a minute, an EC key")
    func details() throws {
        func detail(_ payload: String, header: String? = nil, at time: Double = TokenFactory.now) -> String {
            do {
                _ = try TokenFactory.verifier().verify(TokenFactory.token(header: header, payload: payload), at: time)
                return "valid"
            } catch {
                return error.detail
            }
        }
        let base = #""iss":"https://appleid.apple.com","exp":1700003600,"iat":1700000000"#
        #expect(
            detail(#"{\#(base),"aud":"com.attacker.app"}"#) == #"aud "com.attacker.app" names no accepted audience"#)
        #expect(detail(#"{\#(base),"aud":["a","b"]}"#) == #"aud ["a", "b"] names no accepted audience"#)
        let expired = #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700000000,"iat":1699999000}"#
        #expect(
            detail(expired, at: 1_728_970_578.655377388) == "expired at 1700000000, 28970578s before now (leeway 60s)")
        #expect(detail(expired, at: 1_700_000_060.25) == "expired at 1700000000, 60s before now (leeway 60s)")
        let early =
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":1700000000,"nbf":1700001090.5}"#
        #expect(detail(early) == "not valid before 1700001090.5, 90s from now")
        #expect(
            detail(TokenFactory.claims(), header: #"{"kid":"rsa-a","alg":"ES256"}"#)
                == "ES256 needs an EC key; this key is RSA")
    }
}
