import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// Header parameters, in the order the vectors README fixes (§1.5 step 4).
@Suite("JOSE header")
struct HeaderTests {
    private func reason(header: String, algorithm: SignatureAlgorithm = .rs256) -> String? {
        TokenFactory.reason(TokenFactory.token(header: header, payload: TokenFactory.claims(), algorithm: algorithm))
    }

    @Test(
        "header parameters",
        arguments: [
            (#"{"kid":"rsa-a","alg":"RS256"}"#, nil as String?),
            (#"{"alg":"RS256","kid":"rsa-a","typ":"JWT"}"#, nil),
            (#"{"alg":"RS256","kid":"rsa-a","typ":"jwt"}"#, nil),
            (#"{"alg":"RS256","kid":"rsa-a","typ":"application/JWT"}"#, nil),
            (#"{"alg":"RS256","kid":"rsa-a","b64":true}"#, nil),
            (#"{"alg":"RS256","kid":"rsa-a","jku":"https://attacker.example/keys","x5u":"https://a.example"}"#, nil),
            (#"{"kid":"rsa-a"}"#, "header_invalid"),
            (#"{"alg":null,"kid":"rsa-a"}"#, "header_invalid"),
            (#"{"alg":"none","kid":"rsa-a"}"#, "alg_none"),
            (#"{"alg":"NoNe"}"#, "alg_none"),
            (#"{"alg":"HS256","kid":"rsa-a"}"#, "unsupported_alg"),
            (#"{"alg":"rs256","kid":"rsa-a"}"#, "unsupported_alg"),
            (#"{"alg":"RS256","kid":"rsa-a","crit":[]}"#, "crit_unsupported"),
            (#"{"alg":"RS256","kid":"rsa-a","b64":false}"#, "header_invalid"),
            (#"{"alg":"RS256","kid":"rsa-a","b64":"true"}"#, "header_invalid"),
            (#"{"alg":"RS256","kid":7}"#, "header_invalid"),
            (#"{"alg":"RS256","kid":"rsa-a","typ":"at+jwt"}"#, "header_invalid"),
            (#"{"alg":"RS256","kid":"rsa-a","typ":1}"#, "header_invalid"),
            (#"{"alg":"RS256","kid":"rsa-a","alg":"RS256"}"#, "malformed"),
            (#"["RS256"]"#, "malformed"),
            (#"{"alg":"RS256","kid":"rsa-a"} x"#, "malformed"),
            // Order: an unknown alg wins over crit; crit wins over a bad kid.
            (#"{"alg":"HS256","crit":["x"],"kid":1}"#, "unsupported_alg"),
            (#"{"alg":"RS256","crit":["x"],"kid":1}"#, "crit_unsupported"),
        ])
    func parameters(header: String, expected: String?) {
        #expect(reason(header: header) == expected)
    }

    @Test("nesting deeper than 64 levels is malformed; 64 levels are fine")
    func depth() {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(reason(header: #"{"alg":"RS256","kid":"rsa-a","x":\#(deep)}"#) == "malformed")
        let fits = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(reason(header: #"{"alg":"RS256","kid":"rsa-a","x":\#(fits)}"#) == nil)
    }

    @Test("a header without kid is verified by the only key of a one-key set, never by one of several")
    func missingKid() throws {
        let token = TokenFactory.token(
            header: #"{"alg":"ES256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.ec)
        #expect(TokenFactory.reason(token) == "unknown_kid")
        let single = try JWKSet(json: Array("{\"keys\":[\(TokenFactory.ec.jwkJSON)]}".utf8))
        let verifier = Verifier(
            keys: single, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        #expect(TokenFactory.reason(token, verifier: verifier) == nil)
    }
}
