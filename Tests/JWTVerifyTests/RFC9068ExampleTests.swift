import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// RFC 9068's example access token (§3, Figure 2): its header and claims byte for byte, as the RFC
/// prints them. The RFC publishes no key and no signature, so the test signs the example with a
/// key of its own, named by the example's `kid`.
@Suite("RFC 9068 example")
struct RFC9068ExampleTests {
    static let header = #"{"typ":"at+JWT","alg":"RS256","kid":"RjEwOwOA"}"#
    static let claims = """
        {
          "iss": "https://authorization-server.example.com/",
          "sub": "5ba552d67",
          "aud":   "https://rs.example.com/",
          "exp": 1639528912,
          "iat": 1618354090,
          "jti" : "dbe39bf3a3ba4238a513f51d6e1691c4",
          "client_id": "s6BhdRkqt3",
          "scope": "openid profile reademail"
        }
        """

    /// The test's key, under the example's `kid`.
    static let signer = TokenFactory.Signer(kid: "RjEwOwOA", algorithm: .rs256, key: TokenFactory.rsa.key)
    static let token = TokenFactory.token(header: header, payload: claims, signer: signer)

    /// Between the example's `iat` (2021-04-13) and `exp` (2021-12-15).
    static let inside = 1_630_000_000.0

    static func verifier(scopes: [String] = [], at now: Double = inside) throws -> Verifier {
        let policy = VerificationPolicy.accessToken(
            issuer: "https://authorization-server.example.com/", audiences: ["https://rs.example.com/"],
            requiredScopes: scopes)
        return Verifier(keys: try JWKSet(json: #"{"keys":[\#(signer.jwkJSON)]}"#), policy: policy.clock { now })
    }

    @Test("the example verifies inside its lifetime, its claims read exactly; typ at+JWT is at+jwt")
    func example() throws {
        let verified = try Self.verifier(scopes: ["openid", "reademail"]).verify(Self.token)
        #expect(verified.keyID == "RjEwOwOA" && verified.algorithm == .rs256)
        #expect(verified.payload == Array(Self.claims.utf8))
        #expect(verified.claims.issuer == "https://authorization-server.example.com/")
        #expect(verified.claims.subject == "5ba552d67")
        #expect(verified.claims.audience == ["https://rs.example.com/"] && !verified.claims.audienceIsArray)
        #expect(verified.claims.expiresAt == 1_639_528_912 && verified.claims.issuedAt == 1_618_354_090)
        let claims = try #require(verified.provider(as: AccessTokenClaims.self))
        #expect(claims.clientID == "s6BhdRkqt3" && claims.jwtID == "dbe39bf3a3ba4238a513f51d6e1691c4")
        #expect(claims.scope == "openid profile reademail" && claims.scopes == ["openid", "profile", "reademail"])
        #expect(claims.cnf == nil && claims.keyThumbprint == nil)
    }

    @Test("the example's refusals: a scope it lacks (reademail is one scope), after exp, under an ID-token profile")
    func refusals() throws {
        let lacking = TokenFactory.failure(Self.token, verifier: try Self.verifier(scopes: ["profile", "email"]))
        #expect(lacking?.reason == .insufficientScope && lacking?.detail == #"scope lacks the required "email""#)
        let late = TokenFactory.failure(Self.token, verifier: try Self.verifier(at: 1_639_528_912 + 3600))
        #expect(late?.reason == .expired)
        let oidc = Verifier(
            keys: try JWKSet(json: #"{"keys":[\#(Self.signer.jwkJSON)]}"#),
            policy: VerificationPolicy.oidc(
                issuer: "https://authorization-server.example.com/", audiences: ["https://rs.example.com/"]
            ).clock { Self.inside })
        #expect(TokenFactory.failure(Self.token, verifier: oidc)?.reason == .headerInvalid)
    }
}
