import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The policy's claim rules (`--require-claim PATH=VALUE`) and dotted claim paths.
@Suite("claim rules")
struct ClaimRuleTests {
    static let now = 1_700_001_000.0

    /// A verified-or-refused verdict of `payload` (extra members after the registered ones) under `rules`.
    static func verdict(
        _ extra: String, rules: [String], policy: VerificationPolicy? = nil
    ) -> (String, String)? {
        var policy = policy ?? VerificationPolicy(issuers: ["https://id.example"], audiences: ["api"])
        policy.claimRules = rules.map { ClaimRule(parsing: $0)! }
        let verifier = Verifier(keys: TokenFactory.keys, policy: policy.clock { now })
        let payload = #"{"iss":"https://id.example","aud":"api","exp":1700003600,"sub":"u-1""# + extra + "}"
        do {
            _ = try verifier.verify(TokenFactory.token(payload: payload))
            return nil
        } catch {
            return (error.reason.rawValue, error.detail)
        }
    }

    static let roles = #","realm_access":{"roles":["reader","admin"],"level":"gold","on":true,"n":3}"#

    @Test("a string claim must equal the value, an array must hold it, true/false match booleans; all must hold")
    func matching() {
        #expect(Self.verdict(Self.roles, rules: ["sub=u-1"]) == nil)
        #expect(Self.verdict(Self.roles, rules: ["realm_access.roles=admin", "realm_access.level=gold"]) == nil)
        #expect(Self.verdict(Self.roles, rules: ["realm_access.on=true"]) == nil)
        #expect(
            Self.verdict(Self.roles, rules: ["sub=u-1", "realm_access.roles=owner"])!
                == ("claim_mismatch", #"claim "realm_access.roles" does not contain "owner""#))
        #expect(Self.verdict(Self.roles, rules: ["sub=u-2"])! == ("claim_mismatch", #"claim "sub" is not "u-2""#))
        #expect(
            Self.verdict(Self.roles, rules: ["realm_access.on=false"])!
                == ("claim_mismatch", #"claim "realm_access.on" is true, not "false""#))
        #expect(
            Self.verdict(Self.roles, rules: ["realm_access.missing=x"])!
                == ("claim_mismatch", #"claim "realm_access.missing" is absent"#))
        // A step through a non-object, a number, an object: never a match.
        #expect(Self.verdict(Self.roles, rules: ["sub.x=u"])! == ("claim_mismatch", #"claim "sub.x" is absent"#))
        for rule in ["realm_access.n=3", "realm_access=roles"] {
            let path = String(rule.prefix(while: { $0 != "=" }))
            #expect(
                Self.verdict(Self.roles, rules: [rule])!
                    == ("claim_mismatch", "claim \"\(path)\" is not a string, an array or a boolean"), "\(rule)")
        }
        // An array's non-string elements never match; "true" as a string matches only the string.
        #expect(Self.verdict(#","g":[1,true,null,{"a":"x"}]"#, rules: ["g=true"])?.0 == "claim_mismatch")
        #expect(Self.verdict(#","g":"true""#, rules: ["g=true"]) == nil)
        // The first rule that fails is the one named.
        #expect(
            Self.verdict(Self.roles, rules: ["sub=x", "realm_access.roles=owner"])!
                == ("claim_mismatch", #"claim "sub" is not "x""#))
    }

    @Test("names and values compare as bytes: a canonically equivalent spelling is another value")
    func bytes() {
        // "é" precomposed in the token, decomposed in the rule (String == would call them equal).
        #expect(Self.verdict(#","team":"caf\u00e9""#, rules: ["team=cafe\u{301}"])?.0 == "claim_mismatch")
        #expect(Self.verdict(#","team":"caf\u00e9""#, rules: ["team=caf\u{e9}"]) == nil)
        #expect(Self.verdict(#","caf\u00e9":"x""#, rules: ["cafe\u{301}=x"])?.1 == "claim \"cafe\u{301}\" is absent")
        // Escapes in the payload are undone before the comparison.
        #expect(Self.verdict(#","team":"a\"b""#, rules: [#"team=a"b"#]) == nil)
    }

    @Test("the rules run after every other check: a token failing an earlier one gets that reason")
    func order() {
        let expired = VerificationPolicy(issuers: ["https://id.example"], audiences: ["api"]).clock { 1_800_000_000 }
        var policy = expired
        policy.claimRules = [ClaimRule(parsing: "sub=nobody")!]
        let verifier = Verifier(keys: TokenFactory.keys, policy: policy)
        let token = TokenFactory.token(payload: #"{"iss":"https://id.example","aud":"api","exp":1700003600}"#)
        #expect(throws: VerificationError(.expired)) { try verifier.verify(token) }
        // The provider's rules come first too: a scope missing before a claim rule.
        var access = VerificationPolicy.accessToken(
            issuer: "https://id.example", audiences: ["api"], requiredScopes: ["write"])
        access.claimRules = [ClaimRule(parsing: "sub=nobody")!]
        let accessToken = TokenFactory.token(
            header: #"{"alg":"RS256","kid":"rsa-a","typ":"at+jwt"}"#,
            payload:
                #"{"iss":"https://id.example","aud":"api","exp":1700003600,"sub":"u","client_id":"c","iat":1700000000,"jti":"j","scope":"read"}"#
        )
        let accessVerifier = Verifier(keys: TokenFactory.keys, policy: access.clock { Self.now })
        #expect(throws: VerificationError(.insufficientScope)) { try accessVerifier.verify(accessToken) }
    }

    @Test("with a cache, a token refused by a rule is never stored, so a repeat is refused again; a kept one hits")
    func cached() throws {
        var policy = VerificationPolicy(issuers: ["https://id.example"], audiences: ["api"]).clock { Self.now }
        let token = TokenFactory.token(
            payload: #"{"iss":"https://id.example","aud":"api","exp":1700003600,"sub":"u-1""# + Self.roles + "}")
        policy.claimRules = [ClaimRule(parsing: "realm_access.roles=owner")!]
        let refusing = Verifier(keys: TokenFactory.keys, policy: policy, cache: .init(capacity: 8))
        for _ in 0..<2 { #expect(throws: VerificationError(.claimMismatch)) { try refusing.verify(token) } }
        #expect(refusing.cache?.counters.insertions == 0 && refusing.cache?.counters.hits == 0)
        policy.claimRules = [ClaimRule(parsing: "realm_access.roles=admin")!]
        let keeping = Verifier(keys: TokenFactory.keys, policy: policy, cache: .init(capacity: 8))
        for _ in 0..<2 { _ = try keeping.verify(token) }
        #expect(keeping.cache?.counters.insertions == 1 && keeping.cache?.counters.hits == 1)
    }

    @Test("paths: dots split names, \\. and \\\\ escape; empty names and dangling escapes are refused")
    func paths() {
        #expect(ClaimPath(parsing: "a.b.c")?.components == ["a", "b", "c"])
        #expect(ClaimPath(parsing: #"https://example\.com/roles"#)?.components == ["https://example.com/roles"])
        #expect(ClaimPath(parsing: #"a\\.b"#)?.components == [#"a\"#, "b"])
        for text in ["", ".", "a.", ".a", "a..b", #"a\"#, #"a\b"#] {
            #expect(ClaimPath(parsing: text) == nil, "\(text)")
        }
        for text in ["a.b", #"x\.y.z"#, #"a\\b"#] { #expect(ClaimPath(parsing: text)?.description == text) }
        #expect(ClaimRule(parsing: "a.b=x=y")?.value == "x=y" && ClaimRule(parsing: "a=")?.value == "")
        #expect(ClaimRule(parsing: "a") == nil && ClaimRule(parsing: "=x") == nil)
        #expect(
            Self.verdict(#","https://example.com/roles":["admin"]"#, rules: [#"https://example\.com/roles=admin"#])
                == nil)
    }

    @Test("a nested claim is kept for the gateway along a dotted path; an absent one is nil")
    func captured() throws {
        var policy = VerificationPolicy(issuers: ["https://id.example"], audiences: ["api"]).clock { Self.now }
        policy.capturedClaims = ["realm_access.roles", "realm_access.level", "sub", "nope.x"].map {
            ClaimPath(parsing: $0)!
        }
        let verifier = Verifier(keys: TokenFactory.keys, policy: policy)
        let token = try verifier.verify(
            TokenFactory.token(
                payload: #"{"iss":"https://id.example","aud":"api","exp":1700003600,"sub":"u-1""# + Self.roles + "}"))
        #expect(token.capturedClaim(at: 0) == .array([.string("reader"), .string("admin")]))
        #expect(token.capturedClaim(at: 1) == .string("gold") && token.capturedClaim(at: 2) == .string("u-1"))
        #expect(token.capturedClaim(at: 3) == nil)
        #expect(ClaimPath(parsing: "realm_access.level")!.value(in: token.allClaims) == .string("gold"))
    }
}
