import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// What a verified token prints: its claims, registered and provider's, never the token.
@Suite("VerifiedToken printing")
struct VerifiedTokenDescriptionTests {
    static let payload =
        #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000900,"#
        + #""sub":"001234.abc.1234","email":"u@example.com","email_verified":"true","c_hash":"ch-1","locale":"fr"}"#

    /// An Apple identity token over ``payload`` and what the Apple preset verified of it.
    static func verified() throws -> (token: String, verified: VerifiedToken) {
        let token = TokenFactory.token(payload: payload)
        let verifier = Verifier(
            keys: TokenFactory.keys,
            policy: .appleIdentityToken(audiences: ["com.example.app"], nonce: .checkedWhenGiven).clock {
                TokenFactory.now
            })
        return (token, try verifier.verify(token))
    }

    @Test("print shows the algorithm, kid, registered claims and Apple's typed claims, as JSON")
    func description() throws {
        let (_, verified) = try Self.verified()
        #expect(
            verified.description
                == #"VerifiedToken(alg: RS256, kid: "rsa-a", claims: {"aud":"com.example.app","exp":1700001500,"#
                + #""iat":1700000900,"iss":"https://appleid.apple.com","sub":"001234.abc.1234"}, "#
                + #"provider: {"c_hash":"ch-1","email":"u@example.com","email_verified":true})"#)
        #expect("\(verified)" == verified.description)
    }

    @Test("debugPrint adds every claim of the payload (locale, which no rule reads); an array aud stays an array")
    func debugDescription() throws {
        let (_, verified) = try Self.verified()
        #expect(
            String(reflecting: verified)
                == String(verified.description.dropLast())
                + #", payload: {"aud":"com.example.app","c_hash":"ch-1","email":"u@example.com","#
                + #""email_verified":"true","exp":1700001500,"iat":1700000900,"#
                + #""iss":"https://appleid.apple.com","locale":"fr","sub":"001234.abc.1234"})"#)
        let claims = TokenFactory.claims(extra: #""nbf":1700000000.5"#).replacingOccurrences(
            of: #""aud":"com.example.app""#, with: #""aud":["com.example.app","other"]"#)
        let listed = try TokenFactory.verifier().verify(TokenFactory.token(payload: claims))
        #expect(
            listed.description
                == #"VerifiedToken(alg: RS256, kid: "rsa-a", claims: {"aud":["com.example.app","other"],"#
                + #""exp":1700003600,"iat":1700000000,"iss":"https://appleid.apple.com","nbf":1700000000.5,"#
                + #""sub":"001234.abc.1234"}, provider: {})"#)
    }

    @Test("no printing form shows the compact token, a segment of it or its signature")
    func neverTheToken() throws {
        let (token, verified) = try Self.verified()
        let segments = token.split(separator: ".").map(String.init)
        #expect(segments.count == 3)
        var dumped = ""
        dump(verified, to: &dumped)
        for printed in [verified.description, String(reflecting: verified), dumped] {
            #expect(!printed.contains(token))
            for segment in segments { #expect(!printed.contains(segment), "\(printed)") }
        }
        #expect(dumped.contains("algorithm: \"RS256\"") && dumped.contains("sub"), "\(dumped)")
    }
}
