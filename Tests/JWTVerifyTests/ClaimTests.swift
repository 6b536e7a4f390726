import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// Claim types and the claim policy at a fixed clock (now = 1700001000, leeway 60 unless stated).
@Suite("claims")
struct ClaimTests {
    private func reason(_ payload: String, leeway: Double = 60, nonce: String? = nil) -> String? {
        TokenFactory.reason(
            TokenFactory.token(payload: payload), nonce: nonce, verifier: TokenFactory.verifier(leeway: leeway))
    }

    @Test(
        "exp boundaries",
        arguments: [
            ("1700000940", 60.0, "expired"), ("1700000941", 60, nil), ("1700001000", 0, "expired"),
            ("1700001001", 0, nil), ("1700000940.5", 60, nil), ("1700000939.5", 60, "expired"),
            ("1.7000036e9", 60, nil), ("17000036E2", 60, nil),
        ] as [(String, Double, String?)])
    func expiry(exp: String, leeway: Double, expected: String?) {
        #expect(reason(TokenFactory.claims(exp: exp, iat: "1700000000"), leeway: leeway) == expected)
    }

    @Test(
        "nbf and iat boundaries",
        arguments: [
            (#""nbf":1700001060"#, nil as String?), (#""nbf":1700001061"#, "not_yet_valid"),
            (#""nbf":1700001000.5"#, nil),
        ])
    func notBefore(member: String, expected: String?) {
        #expect(reason(TokenFactory.claims(extra: member)) == expected)
    }

    @Test(
        "iat in the future beyond leeway",
        arguments: [("1700001060", nil as String?), ("1700001061", "issued_in_future")])
    func issuedAt(iat: String, expected: String?) {
        #expect(reason(TokenFactory.claims(iat: iat)) == expected)
    }

    @Test(
        "claim types",
        arguments: [
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":"1700003600"}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app"}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":-1}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":9007199254740992}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1e300}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":null}"#,
            #"{"iss":1,"aud":"com.example.app","exp":1700003600}"#,
            #"{"iss":"https://appleid.apple.com","aud":["com.example.app",1],"exp":1700003600}"#,
            #"{"iss":"https://appleid.apple.com","aud":{},"exp":1700003600}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"sub":false}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"nonce":1}"#,
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":"1"}"#,
        ])
    func types(payload: String) {
        #expect(reason(payload) == "claim_type")
    }

    @Test("claim types are checked before the issuer, issuer before audience, audience before time")
    func order() {
        #expect(reason(#"{"iss":"x","aud":"y","exp":"1"}"#) == "claim_type")
        #expect(reason(#"{"iss":"x","aud":"y","exp":1}"#) == "issuer_mismatch")
        #expect(reason(#"{"iss":"https://appleid.apple.com","aud":"y","exp":1}"#) == "audience_mismatch")
        #expect(reason(#"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1}"#) == "expired")
    }

    @Test(
        "issuer is exact",
        arguments: [
            (#""https://appleid.apple.com""#, nil as String?), (#""https:\/\/appleid.apple.com""#, nil),
            (#""https://appleid.apple.com/""#, "issuer_mismatch"), (#""https://AppleID.apple.com""#, "issuer_mismatch"),
            (#""https://appleid.apple.com\u0000""#, "issuer_mismatch"),
            (#"" https://appleid.apple.com""#, "issuer_mismatch"),
        ])
    func issuer(iss: String, expected: String?) {
        #expect(reason(#"{"iss":\#(iss),"aud":"com.example.app","exp":1700003600}"#) == expected)
    }

    @Test(
        "audience: a string, or an array containing an accepted value",
        arguments: [
            (#""com.example.app""#, nil as String?), (#"["other","com.example.app"]"#, nil),
            (#"["com.example.app"]"#, nil), (#"[]"#, "audience_mismatch"), (#""com.example.APP""#, "audience_mismatch"),
            (#"["other"]"#, "audience_mismatch"), (#""com.example.app.evil""#, "audience_mismatch"),
        ])
    func audience(aud: String, expected: String?) {
        #expect(reason(#"{"iss":"https://appleid.apple.com","aud":\#(aud),"exp":1700003600}"#) == expected)
        #expect(reason(#"{"iss":"https://appleid.apple.com","exp":1700003600}"#) == "audience_mismatch")
    }

    @Test("several accepted audiences: any one matches")
    func severalAudiences() {
        let verifier = Verifier(
            keys: TokenFactory.keys, issuer: TokenFactory.issuer, audiences: ["com.example.app", "com.example.web"],
            clock: { TokenFactory.now })
        let token = TokenFactory.token(
            payload: #"{"iss":"https://appleid.apple.com","aud":"com.example.web","exp":1700003600}"#)
        #expect(TokenFactory.reason(token, verifier: verifier) == nil)
    }

    @Test("verified tokens expose typed registered claims and every other claim")
    func verifiedClaims() throws {
        let payload = TokenFactory.claims(
            extra: #""email_verified":"true","n":{"a":[1,2.5,null,true]},"nbf":1700000000"#)
        let token = try TokenFactory.verifier().verify(TokenFactory.token(payload: payload))
        #expect(token.claims.issuer == "https://appleid.apple.com")
        #expect(token.claims.audience == ["com.example.app"])
        #expect(token.claims.audienceIsArray == false)
        #expect(token.claims.subject == "001234.abc.1234")
        #expect(token.claims.expiresAt == 1_700_003_600)
        #expect(token.claims.issuedAt == 1_700_000_000)
        #expect(token.claims.notBefore == 1_700_000_000)
        #expect(token.claim("email_verified") == .string("true"))
        #expect(token.claim("n") == .object(["a": .array([.integer(1), .number(2.5), .null, .bool(true)])]))
        #expect(token.claim("missing") == nil)
        #expect(token.allClaims.count == 8)
    }

    @Test("a verified token's payload is the signed bytes exactly, whatever their length, in a batch or alone")
    func payloadBytes() throws {
        let verifier = TokenFactory.verifier()
        var batch = TokenBatch()
        var expected: [[UInt8]] = []
        for padding in [0, 1, 7, 8, 63, 64, 65, 1000, 5000] {
            // Spaces and an escape: bytes a re-serialisation would not keep.
            let payload = TokenFactory.claims(
                extra: #""pad":"\#(String(repeating: "x", count: padding))","e":"a\u0041"  "#)
            let token = TokenFactory.token(payload: payload)
            expected.append(Array(payload.utf8))
            #expect(try verifier.verify(token).payload == Array(payload.utf8), "alone, padding \(padding)")
            batch.append(token)
        }
        let payloads = verifier.verify(batch).map { try? $0.get().payload }
        #expect(payloads == expected.map { Optional($0) })
    }

    @Test("the time of evaluation can be given per call")
    func explicitTime() throws {
        let token = TokenFactory.token(payload: TokenFactory.claims())
        #expect(throws: VerificationError(.expired)) { try TokenFactory.verifier().verify(token, at: 1_700_003_660) }
        #expect(throws: VerificationError(.issuedInFuture)) {
            try TokenFactory.verifier().verify(token, at: 1_699_999_000)
        }
    }
}

/// `ProviderClaims` holds one provider's own typed claims.
@Suite("provider claims as a value")
struct ProviderClaimsValueTests {
    @Test(
        "claims built by hand: equal when their members are, members under JWT names, a provider's case not another's")
    func valueSemantics() {
        #expect(ProviderClaims() == .none)
        #expect(ProviderClaims().email == nil && ProviderClaims().members.isEmpty)
        var apple = AppleIdentityClaims()
        apple.email = "a@example.com"
        apple.emailVerified = true
        apple.realUserStatus = 2
        apple.authTime = 1_700_000_000.5
        let claims = ProviderClaims(apple)
        #expect(claims.email == "a@example.com" && claims.emailVerified == true)
        #expect(claims.claims(as: AppleIdentityClaims.self) == apple && claims.claims(as: OIDCClaims.self) == nil)
        #expect(
            claims.members == [
                "email": .string("a@example.com"), "email_verified": .bool(true), "real_user_status": .integer(2),
                "auth_time": .number(1_700_000_000.5),
            ])
        var other = apple
        other.email = "b@example.com"
        #expect(ProviderClaims(other) != claims)
        #expect(ProviderClaims(other).hashValue != claims.hashValue)
        other.email = "a@example.com"
        #expect(ProviderClaims(other) == claims)
        var oidc = OIDCClaims()
        oidc.email = "a@example.com"
        oidc.emailVerified = true
        // The same members under another provider are other claims.
        #expect(
            ProviderClaims(oidc) != claims
                && ProviderClaims(oidc).members == [
                    "email": .string("a@example.com"), "email_verified": .bool(true),
                ])
    }
}
