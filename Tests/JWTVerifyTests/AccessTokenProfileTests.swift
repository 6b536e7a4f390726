import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The access-token profile (RFC 9068): the header type, the required claims, the scopes.
@Suite("access-token profile")
struct AccessTokenProfileTests {
    static let now = 1_700_001_000.0
    static let issuer = "https://auth.example.com"

    static func header(_ typ: String?) -> String {
        #"{"alg":"RS256","kid":"rsa-a""# + (typ.map { #","typ":"\#($0)""# } ?? "") + "}"
    }

    /// An RFC 9068 payload; `drop` leaves members out, `extra` adds some verbatim.
    static func payload(scope: String? = "read write", drop: Set<String> = [], extra: String = "") -> String {
        var members: [(String, String)] = [
            ("iss", #""\#(issuer)""#), ("exp", "1700003600"), ("aud", #"["https://api.example.com"]"#),
            ("sub", #""user-5""#), ("client_id", #""client-9""#), ("iat", "1700000000"), ("jti", #""id-1""#),
        ]
        if let scope { members.append(("scope", #""\#(scope)""#)) }
        let body = members.filter { !drop.contains($0.0) }.map { #""\#($0.0)":\#($0.1)"# }
        return "{" + (body + (extra.isEmpty ? [] : [extra])).joined(separator: ",") + "}"
    }

    static func verify(
        _ payload: String, typ: String? = "at+jwt", scopes: [String] = [], policy: VerificationPolicy? = nil
    ) -> Result<VerifiedToken, VerificationError> {
        let policy =
            policy ?? .accessToken(issuer: issuer, audiences: ["https://api.example.com"], requiredScopes: scopes)
        let verifier = Verifier(keys: TokenFactory.keys, policy: policy.clock { now })
        do {
            return .success(try verifier.verify(TokenFactory.token(header: header(typ), payload: payload)))
        } catch {
            return .failure(error)
        }
    }

    static func failure(_ result: Result<VerifiedToken, VerificationError>) -> (String, String)? {
        guard case .failure(let error) = result else { return nil }
        return (error.reason.rawValue, error.detail)
    }

    @Test("a valid access token verifies, with client_id, jti, the scopes and cnf typed")
    func valid() throws {
        // Bound by cnf.jkt, a token needs a DPoP proof (DPoPTests): without DPoP it is refused.
        #expect(
            Self.failure(Self.verify(Self.payload(extra: #""cnf":{"jkt":"0ZcOCORZNYy"}"#)))!
                == ("dpop_missing", "the token is bound to a key (cnf.jkt) and this policy takes no DPoP proofs"))
        let token = try Self.verify(Self.payload(scope: "read  write", extra: #""cnf":{"x5t#S256":"0ZcOCORZNYy"}"#))
            .get()
        let claims = try #require(token.provider(as: AccessTokenClaims.self))
        #expect(claims.clientID == "client-9" && claims.jwtID == "id-1")
        #expect(claims.scope == "read  write" && claims.scopes == ["read", "write"])
        #expect(claims.cnf == .object(["x5t#S256": .string("0ZcOCORZNYy")]) && claims.keyThumbprint == nil)
        #expect(token.claims.subject == "user-5" && token.provider(as: OIDCClaims.self) == nil)
        #expect(token.provider.members["client_id"] == .string("client-9"))
        let bare = try #require(try Self.verify(Self.payload(scope: nil)).get().provider(as: AccessTokenClaims.self))
        #expect(bare.scope == nil && bare.scopes.isEmpty && bare.cnf == nil && bare.keyThumbprint == nil)
        let unbound = try Self.verify(Self.payload(extra: #""cnf":{"jkt":7}"#)).get()
        #expect(unbound.provider(as: AccessTokenClaims.self)?.keyThumbprint == nil)
    }

    @Test("typ: at+jwt or application/at+jwt in any ASCII letter case; an ID token is refused as one")
    func headerType() {
        for typ in ["at+jwt", "application/at+jwt", "AT+JWT", "Application/At+JWT"] {
            #expect(Self.failure(Self.verify(Self.payload(), typ: typ)) == nil, "\(typ)")
        }
        let idToken = "an ID token, not an access token"
        #expect(
            Self.failure(Self.verify(Self.payload(), typ: "JWT"))! == ("header_invalid", idToken + #" (typ "JWT")"#))
        #expect(
            Self.failure(Self.verify(Self.payload(), typ: "application/jwt"))!
                == ("header_invalid", idToken + #" (typ "application/jwt")"#))
        #expect(
            Self.failure(Self.verify(Self.payload(), typ: nil))! == ("header_invalid", idToken + " (typ is missing)"))
        let other = ("header_invalid", "typ is not at+jwt or application/at+jwt")
        // No other spelling: a prefix other than application/, a space, a suffix, another type, K as KELVIN SIGN.
        for typ in [
            "text/at+jwt", "at+jwt ", "application/at+jwtx", "dpop+jwt", "at+jw", "application/", "at+jw\u{212A}",
        ] {
            #expect(Self.failure(Self.verify(Self.payload(), typ: typ))! == other, "\(typ)")
        }
        let numeric = TokenFactory.token(header: #"{"alg":"RS256","kid":"rsa-a","typ":1}"#, payload: Self.payload())
        let verifier = Verifier(
            keys: TokenFactory.keys,
            policy: VerificationPolicy.accessToken(issuer: Self.issuer, audiences: ["https://api.example.com"])
                .clock { Self.now })
        #expect(TokenFactory.failure(numeric, verifier: verifier).map { ($0.reason.rawValue, $0.detail) }! == other)
    }

    @Test("the ID-token profiles keep refusing at+jwt: apple, google, oidc")
    func idTokenProfilesRefuseAccessTokens() {
        let payload =
            #"{"iss":"ISS","aud":"com.example.app","exp":1700003600,"iat":1700000000,"sub":"u","client_id":"c","jti":"j","nonce_supported":false}"#
        let policies: [(String, VerificationPolicy)] = [
            ("https://appleid.apple.com", .appleIdentityToken(audiences: ["com.example.app"])),
            ("https://accounts.google.com", .google(audiences: ["com.example.app"])),
            ("https://login.example.com", .oidc(issuer: "https://login.example.com", audiences: ["com.example.app"])),
        ]
        for (issuer, policy) in policies {
            let text = payload.replacingOccurrences(of: "ISS", with: issuer)
            for typ in ["at+jwt", "application/at+jwt"] {
                let result = Self.verify(text, typ: typ, policy: policy)
                #expect(
                    Self.failure(result)! == ("header_invalid", "typ is not JWT or application/jwt"),
                    "\(policy.rules.profileName!) \(typ)")
            }
            // The same token typed JWT is the profile's own (Apple's nonce aside).
            var untyped = policy
            untyped.nonceRequirement = .checkedWhenGiven
            #expect(Self.failure(Self.verify(text, typ: "JWT", policy: untyped)) == nil, "\(policy.rules.profileName!)")
        }
    }

    @Test("iss, exp, aud, sub, client_id, iat and jti are required and typed: claim_type otherwise")
    func requiredClaims() {
        // Under the preset the generic checks find a missing iss, exp or aud first.
        #expect(Self.failure(Self.verify(Self.payload(drop: ["iss"])))! == ("issuer_mismatch", "iss is missing"))
        #expect(Self.failure(Self.verify(Self.payload(drop: ["exp"])))! == ("claim_type", "exp is missing"))
        #expect(Self.failure(Self.verify(Self.payload(drop: ["aud"])))! == ("audience_mismatch", "aud is missing"))
        // The rules require them themselves, under a policy that checks no issuer or audience.
        let unchecked = VerificationPolicy(issuers: nil, audiences: nil, rules: .accessToken())
        for name in ["iss", "aud", "iat"] {
            #expect(
                Self.failure(Self.verify(Self.payload(drop: [name]), policy: unchecked))!
                    == ("claim_type", "\(name) is missing, and an access token requires it"), "\(name)")
        }
        #expect(
            Self.failure(Self.verify(Self.payload(drop: ["sub"])))!
                == ("claim_type", "sub (the resource owner or the client) must be a non-empty string"))
        for name in ["client_id", "jti"] {
            #expect(
                Self.failure(Self.verify(Self.payload(drop: [name])))!
                    == ("claim_type", "\(name) is missing, and an access token requires it"), "\(name)")
        }
        #expect(
            Self.failure(Self.verify(Self.payload(drop: ["client_id"], extra: #""client_id":5"#)))!.0 == "claim_type")
        #expect(Self.failure(Self.verify(Self.payload(drop: ["jti"], extra: #""jti":5"#)))!.0 == "claim_type")
        #expect(Self.failure(Self.verify(Self.payload(drop: ["sub"], extra: #""sub":"""#)))!.0 == "claim_type")
        #expect(
            Self.failure(Self.verify(Self.payload(scope: nil, extra: #""scope":["read"]"#)))!
                == ("claim_type", "scope is not a string"))
        #expect(
            Self.failure(Self.verify(Self.payload(extra: #""cnf":"jkt""#)))! == ("claim_type", "cnf is not an object"))
        #expect(
            Self.failure(Self.verify(Self.payload(drop: ["aud"], extra: #""aud":7"#)))!.0 == "claim_type")
        #expect(
            Self.failure(Self.verify(Self.payload(drop: ["iss"], extra: #""iss":"https://other""#)))!.0
                == "issuer_mismatch")
    }

    @Test("required scopes: every one must be listed, compared as bytes; else insufficient_scope naming the missing")
    func requiredScopes() {
        #expect(Self.failure(Self.verify(Self.payload(scope: "read write admin"), scopes: ["write", "read"])) == nil)
        #expect(
            Self.failure(Self.verify(Self.payload(scope: "read"), scopes: ["read", "write"]))!
                == ("insufficient_scope", #"scope lacks the required "write""#))
        #expect(
            Self.failure(Self.verify(Self.payload(scope: nil), scopes: ["read", "write"]))!
                == ("insufficient_scope", #"scope lacks the required "read", "write""#))
        // Neither a prefix, nor another letter case, nor a canonically equivalent spelling is the scope.
        #expect(Self.failure(Self.verify(Self.payload(scope: "readonly"), scopes: ["read"]))!.0 == "insufficient_scope")
        #expect(Self.failure(Self.verify(Self.payload(scope: "READ"), scopes: ["read"]))!.0 == "insufficient_scope")
        #expect(
            Self.failure(Self.verify(Self.payload(scope: "cafe\u{301}"), scopes: ["caf\u{E9}"]))!.0
                == "insufficient_scope")
        #expect(VerificationError.Reason.insufficientScope.rawValue == "insufficient_scope")
        let entry = ReasonEntry.entry(of: .insufficientScope)
        #expect(entry?.answer == .challenged(error: "insufficient_scope") && entry?.stage == .rules)
        #expect(ProviderRules.accessToken(requiredScopes: ["a", "b"]).challengeScope == ["a", "b"])
        #expect(ProviderRules.oidc.challengeScope.isEmpty)
    }

    @Test("a scope is granted by a whole space-separated part only, wherever it stands")
    func grants() throws {
        let token = try Self.verify(Self.payload(scope: "  read write  admin ")).get()
        let claims = try #require(token.provider(as: AccessTokenClaims.self))
        #expect(claims.scopes == ["read", "write", "admin"])
        for granted in ["read", "write", "admin"] { #expect(claims.grants(granted), "\(granted)") }
        for refused in ["", " ", "rea", "ead", "read ", " read", "write admin", "admi", "adminx", "wri", "READ"] {
            #expect(!claims.grants(refused), "\(refused)")
        }
        #expect(claims.missing(["admin", "x", "read", ""]) == ["x", ""])
        let none = try #require(try Self.verify(Self.payload(scope: nil)).get().provider(as: AccessTokenClaims.self))
        #expect(!none.grants("read") && none.missing(["read"]) == ["read"] && none.missing([]).isEmpty)
    }

    @Test("the profile by name: issuer required, audiences and scopes from the settings")
    func byName() throws {
        var settings = VerificationPolicy.ProfileSettings(audiences: ["https://api.example.com"], issuer: Self.issuer)
        settings.scopes = ["read"]
        let policy = try VerificationPolicy.profile(named: "access-token", settings)
        #expect(policy.rules == .accessToken(requiredScopes: ["read"]) && policy.issuers == [Self.issuer])
        #expect(policy.keySource == nil)
        #expect(Self.failure(Self.verify(Self.payload(scope: "write"), policy: policy))!.0 == "insufficient_scope")
        #expect(throws: VerificationPolicy.ProfileError.self) {
            try VerificationPolicy.profile(named: "access-token", .init(audiences: ["a"]))
        }
    }
}
