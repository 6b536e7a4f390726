import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// Provider profiles, with tokens in the shapes the providers really send.
@Suite("provider profiles")
struct ProfileTests {
    static let now = 1_700_001_000.0
    static let nonceHash = Nonce.expectedClaim(forRawNonce: "raw-1")

    static func apple(_ extra: String = "", iat: String = "1700000900", nonce: String? = nonceHash) -> String {
        let nonceMember = nonce.map { #","nonce":"\#($0)""# } ?? ""
        return
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":\#(iat),"sub":"001234.abc.1234","c_hash":"x","auth_time":1700000890\#(nonceMember)\#(extra)}"#
    }

    /// A provider preset, given the audiences (the tests vary them).
    typealias Preset = ([String]) -> VerificationPolicy

    static func apple(acceptMissingNonceWhenUnsupported accept: Bool = false) -> Preset {
        { .appleIdentityToken(audiences: $0, acceptMissingNonceWhenUnsupported: accept) }
    }
    static func appleNotification() -> Preset { { .appleNotification(audiences: $0) } }
    static func firebase(project: String) -> Preset { { _ in .firebase(project: project) } }
    static func google(hostedDomain: String? = nil, authorizedParty: String? = nil) -> Preset {
        { .google(audiences: $0, hostedDomain: hostedDomain, authorizedParty: authorizedParty) }
    }
    static func oidc(issuer: String) -> Preset { { .oidc(issuer: issuer, audiences: $0) } }

    static func verify(
        _ preset: Preset, _ payload: String, audiences: [String] = ["com.example.app"], nonce: String? = nil,
        header: String? = nil
    ) -> Result<VerifiedToken, VerificationError> {
        let verifier = Verifier(keys: TokenFactory.keys, policy: preset(audiences).clock { now })
        do {
            return .success(try verifier.verify(TokenFactory.token(header: header, payload: payload), nonce: nonce))
        } catch {
            return .failure(error)
        }
    }

    static func reason(_ result: Result<VerifiedToken, VerificationError>) -> String? {
        if case .failure(let error) = result { return error.reason.rawValue }
        return nil
    }

    @Test(
        "the Firebase rules honour their own project: under a policy that checks no issuer or audience, another project's token is refused"
    )
    func firebaseRulesHonourTheirProject() {
        func token(_ project: String, aud: String? = nil) -> String {
            #"{"iss":"https://securetoken.google.com/\#(project)","aud":"\#(aud ?? project)","exp":1700003600,"iat":1700000000,"sub":"u","auth_time":1700000000}"#
        }
        func rules(_ rules: ProviderRules) -> Preset {
            { _ in VerificationPolicy(issuers: nil, audiences: nil, algorithms: [.rs256], rules: rules) }
        }
        #expect(Self.reason(Self.verify(rules(.firebase(project: "p-1")), token("p-1"))) == nil)
        #expect(Self.reason(Self.verify(rules(.firebase(project: "p-1")), token("p-2"))) == "issuer_mismatch")
        #expect(
            Self.reason(Self.verify(rules(.firebase(project: "p-1")), token("p-1", aud: "p-2"))) == "audience_mismatch")
        let session =
            #"{"iss":"https://session.firebase.google.com/p-1","aud":"p-1","exp":1700003600,"iat":1700000000,"sub":"u","auth_time":1700000000}"#
        #expect(Self.reason(Self.verify(rules(.firebaseSessionCookie(project: "p-1")), session)) == nil)
        #expect(Self.reason(Self.verify(rules(.firebaseSessionCookie(project: "p-2")), session)) == "issuer_mismatch")
        let phone =
            #"{"iss":"https://fpnv.googleapis.com/projects/p-1","aud":"https://fpnv.googleapis.com/projects/p-1","exp":1700003600,"iat":1700000000,"sub":"+15555550100"}"#
        let phoneHeader = #"{"alg":"RS256","typ":"JWT","kid":"rsa-a"}"#
        func phoneResult(_ project: String) -> String? {
            Self.reason(Self.verify(rules(.firebasePhoneNumber(project: project)), phone, header: phoneHeader))
        }
        #expect(phoneResult("p-1") == nil && phoneResult("p-2") == "issuer_mismatch")
        let appCheck =
            #"{"iss":"https://firebaseappcheck.googleapis.com/123","aud":["projects/123","projects/p-1"],"exp":1700003600,"iat":1700000000,"sub":"1:123:ios:abc"}"#
        let appCheckHeader = #"{"alg":"RS256","typ":"JWT","kid":"rsa-a"}"#
        func appCheckResult(_ number: String, _ project: String?) -> String? {
            Self.reason(
                Self.verify(
                    rules(.firebaseAppCheck(projectNumber: number, project: project)), appCheck, header: appCheckHeader)
            )
        }
        #expect(appCheckResult("123", nil) == nil && appCheckResult("124", nil) == "issuer_mismatch")
    }

    @Test("Apple: email_verified and is_private_email as strings or booleans; anything else is claim_type")
    func appleBooleans() throws {
        let strings = try Self.verify(
            Self.apple(), Self.apple(#","email_verified":"true","is_private_email":"false""#), nonce: "raw-1"
        ).get()
        #expect(strings.typed["email_verified"] == .bool(true))
        #expect(strings.typed["is_private_email"] == .bool(false))
        let booleans = try Self.verify(
            Self.apple(), Self.apple(#","email_verified":false,"is_private_email":true"#), nonce: "raw-1"
        ).get()
        #expect(booleans.typed["email_verified"] == .bool(false))
        for bad in [#""TRUE""#, #""yes""#, "1", "null"] {
            #expect(
                Self.reason(Self.verify(Self.apple(), Self.apple(#","email_verified":\#(bad)"#), nonce: "raw-1"))
                    == "claim_type", "\(bad)")
        }
    }

    @Test("Apple: typed claims, real_user_status 0/1/2, iat required, RS256 only, the nonce rules")
    func appleRules() throws {
        let token = try Self.verify(
            Self.apple(), Self.apple(#","real_user_status":2,"nonce_supported":true,"transfer_sub":"t","org_id":"o""#),
            nonce: "raw-1"
        ).get()
        #expect(token.typed["real_user_status"] == .integer(2))
        #expect(token.typed["nonce_supported"] == .bool(true))
        #expect(token.typed["auth_time"] == .integer(1_700_000_890))
        #expect(token.typed["sub"] == .string("001234.abc.1234"))
        #expect(
            Self.reason(Self.verify(Self.apple(), Self.apple(#","real_user_status":3"#), nonce: "raw-1"))
                == "claim_type")
        let noIat =
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"sub":"s","nonce":"\#(Self.nonceHash)"}"#
        #expect(Self.reason(Self.verify(Self.apple(), noIat, nonce: "raw-1")) == "claim_type")
        #expect(Self.reason(Self.verify(Self.apple(), Self.apple(), nonce: "raw-2")) == "nonce_mismatch")
        #expect(Self.reason(Self.verify(Self.apple(), Self.apple(nonce: nil), nonce: "raw-1")) == "nonce_missing")
        let unsupported = Self.apple(#","nonce_supported":false"#, nonce: nil)
        #expect(Self.reason(Self.verify(Self.apple(), unsupported, nonce: "raw-1")) == "nonce_missing")
        #expect(
            Self.reason(Self.verify(Self.apple(acceptMissingNonceWhenUnsupported: true), unsupported, nonce: "raw-1"))
                == nil)
        #expect(
            Self.reason(
                Self.verify(Self.apple(acceptMissingNonceWhenUnsupported: true), Self.apple(nonce: nil), nonce: "raw-1")
            ) == "nonce_missing")
        let es256 = Verifier(
            keys: TokenFactory.keys,
            policy: VerificationPolicy.appleIdentityToken(audiences: ["com.example.app"]).clock { Self.now })
        #expect(throws: VerificationError(.unsupportedAlgorithm)) {
            try es256.verify(TokenFactory.token(payload: Self.apple(), signer: TokenFactory.ec), nonce: "raw-1")
        }
        let wrongIssuer = Self.apple().replacingOccurrences(
            of: "https://appleid.apple.com", with: "https://evil.example")
        #expect(Self.reason(Self.verify(Self.apple(), wrongIssuer, nonce: "raw-1")) == "issuer_mismatch")
    }

    @Test(
        "Apple: a call without the raw nonce is nonce_missing, also on a cache hit and through the lenient rule, unless the policy says it uses no nonces"
    )
    func appleRequiresTheCallersNonce() throws {
        let token = TokenFactory.token(payload: Self.apple())
        let required = VerificationPolicy.appleIdentityToken(audiences: ["com.example.app"]).clock { Self.now }
        #expect(required.nonceRequirement == .required)
        for cache in [nil, VerifiedTokenCache.Configuration(capacity: 8)] {
            let verifier = Verifier(keys: TokenFactory.keys, policy: required, cache: cache)
            for _ in 0..<2 {  // the second call is a cache hit when there is a cache
                #expect(throws: VerificationError(.nonceMissing)) { try verifier.verify(token) }
                #expect(throws: VerificationError(.nonceMissing)) { try verifier.verify(token, at: Self.now) }
                #expect(try verifier.verify(token, nonce: "raw-1").claims.subject == "001234.abc.1234")
            }
        }
        // The order of the checks holds: what fails before the nonce step still wins.
        let expired = TokenFactory.token(
            payload: Self.apple().replacingOccurrences(of: "1700001500", with: "1700000000"))
        #expect(throws: VerificationError(.expired)) {
            try Verifier(keys: TokenFactory.keys, policy: required).verify(expired, at: Self.now)
        }
        // nonce_supported false excuses a token without a nonce, never a call without one.
        let lenient = VerificationPolicy.appleIdentityToken(
            audiences: ["com.example.app"], acceptMissingNonceWhenUnsupported: true)
        #expect(throws: VerificationError(.nonceMissing)) {
            try Verifier(keys: TokenFactory.keys, policy: lenient).verify(
                TokenFactory.token(payload: Self.apple(#","nonce_supported":false"#, nonce: nil)), at: Self.now)
        }
        // Said explicitly: no nonce checked without one, and one given is still checked.
        let noNonces = Verifier(
            keys: TokenFactory.keys,
            policy: .appleIdentityToken(audiences: ["com.example.app"], nonce: .checkedWhenGiven))
        #expect(try noNonces.verify(token, at: Self.now).claims.subject == "001234.abc.1234")
        #expect(throws: VerificationError(.nonceMismatch)) { try noNonces.verify(token, nonce: "raw-2", at: Self.now) }
        // Other presets keep the nonce optional.
        for policy: VerificationPolicy in [
            .appleNotification(audiences: ["a"]), .firebase(project: "p"), .google(audiences: ["a"]),
            .oidc(issuer: "i", audiences: ["a"]),
            .generic(issuer: "i", audiences: ["a"]), VerificationPolicy(issuers: ["i"], audiences: ["a"]),
        ] {
            #expect(policy.nonceRequirement == .checkedWhenGiven)
        }
    }

    @Test(
        "Apple notifications: every event type, from the raw JWS or the POST body; never confused with identity tokens")
    func appleNotifications() throws {
        for type in ["email-disabled", "email-enabled", "consent-revoked", "account-delete", "some-future-type"] {
            let events =
                #"{\"type\":\"\#(type)\",\"sub\":\"001234.abc.1234\",\"email\":\"x@privaterelay.appleid.com\",\"is_private_email\":\"true\",\"event_time\":1700000950123}"#
            let payload =
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"jti":"j","events":"\#(events)"}"#
            let jws = TokenFactory.token(payload: payload)
            let verifier = Verifier(
                keys: TokenFactory.keys,
                policy: VerificationPolicy.appleNotification(audiences: ["com.example.app"]).clock { Self.now })
            for input in [jws, #"{"payload": "\#(jws)"}"#] {
                let event = try #require(try verifier.verify(input).provider(as: AppleNotificationClaims.self)?.event)
                #expect(event.type == type)
                #expect(event.subject == "001234.abc.1234")
                #expect(event.isPrivateEmail == true)
                #expect(event.eventTime == 1_700_000_950_123)
            }
            // Not an identity token (the call gives no nonce, so the preset is told this service uses none).
            #expect(
                Self.reason(Self.verify({ .appleIdentityToken(audiences: $0, nonce: .checkedWhenGiven) }, payload))
                    == "claim_type")
            #expect(Self.reason(Self.verify(Self.apple(), payload)) == "nonce_missing")
        }
        #expect(Self.reason(Self.verify(Self.appleNotification(), Self.apple())) == "claim_type")  // not a notification
    }

    @Test(
        "Firebase: issuer and audience from the project; sub of 1…128 characters; iat and auth_time not in the future")
    func firebase() throws {
        func payload(
            sub: String = "uid-1", authTime: String = "1700000000", iss: String = "https://securetoken.google.com/p-1",
            aud: String = "p-1"
        ) -> String {
            #"{"iss":"\#(iss)","aud":"\#(aud)","exp":1700003600,"iat":1700000000,"sub":"\#(sub)","auth_time":\#(authTime),"email":"a@b.c","email_verified":true,"firebase":{"sign_in_provider":"apple.com","identities":{"apple.com":["001"]}}}"#
        }
        let token = try Self.verify(Self.firebase(project: "p-1"), payload(), audiences: []).get()
        #expect(token.typed["uid"] == .string("uid-1"))
        #expect(token.typed["firebase.sign_in_provider"] == .string("apple.com"))
        #expect(token.typed["firebase.identities"] == .object(["apple.com": .array([.string("001")])]))
        #expect(token.typed["email_verified"] == .bool(true))
        #expect(
            Self.reason(
                Self.verify(
                    Self.firebase(project: "p-1"), payload(sub: String(repeating: "u", count: 128)), audiences: []))
                == nil)
        #expect(
            Self.reason(
                Self.verify(
                    Self.firebase(project: "p-1"), payload(sub: String(repeating: "u", count: 129)), audiences: []))
                == "claim_type")
        #expect(
            Self.reason(Self.verify(Self.firebase(project: "p-1"), payload(sub: ""), audiences: [])) == "claim_type")
        #expect(
            Self.reason(Self.verify(Self.firebase(project: "p-1"), payload(authTime: "1700001100"), audiences: []))
                == "issued_in_future")
        #expect(
            Self.reason(Self.verify(Self.firebase(project: "p-1"), payload(aud: "p-2"), audiences: ["p-2"]))
                == "audience_mismatch")
        // The expected issuer comes from configuration: a token for project p-2 is refused even when its aud/iss agree.
        #expect(
            Self.reason(
                Self.verify(
                    Self.firebase(project: "p-1"), payload(iss: "https://securetoken.google.com/p-2", aud: "p-2"),
                    audiences: [])) == "issuer_mismatch")
    }

    @Test("Firebase session cookies: the session issuer and the project; the ID token's claim rules; never an ID token")
    func firebaseSessionCookie() throws {
        func payload(
            iss: String = "https://session.firebase.google.com/p-1", aud: String = "p-1",
            authTime: String = "1700000000"
        ) -> String {
            #"{"iss":"\#(iss)","aud":"\#(aud)","exp":1700003600,"iat":1700000000,"sub":"uid-1","auth_time":\#(authTime),"firebase":{"sign_in_provider":"password"}}"#
        }
        let session: Preset = { _ in .firebaseSessionCookie(project: "p-1") }
        let token = try Self.verify(session, payload(), audiences: []).get()
        let claims = try #require(token.provider(as: FirebaseClaims.self))
        #expect(claims.uid == "uid-1" && claims.isSessionCookie && claims.signInProvider == "password")
        #expect(
            Self.reason(Self.verify(session, payload(iss: "https://securetoken.google.com/p-1"), audiences: []))
                == "issuer_mismatch")
        #expect(
            Self.reason(
                Self.verify(session, payload(iss: "https://session.firebase.google.com/p-2", aud: "p-2"), audiences: [])
            ) == "issuer_mismatch")
        #expect(Self.reason(Self.verify(session, payload(aud: "p-2"), audiences: [])) == "audience_mismatch")
        #expect(Self.reason(Self.verify(session, payload(authTime: "1700001100"), audiences: [])) == "issued_in_future")
        // An ID token is not a session cookie, nor the other way round.
        #expect(Self.reason(Self.verify(Self.firebase(project: "p-1"), payload(), audiences: [])) == "issuer_mismatch")
        #expect(VerificationPolicy.firebaseSessionCookie(project: "p-1").keySource == .firebaseSessionCookie)
        #expect(
            try !#require(
                Self.verify(
                    Self.firebase(project: "p-1"), payload(iss: "https://securetoken.google.com/p-1"), audiences: []
                ).get()
                    .provider(as: FirebaseClaims.self)
            ).isSessionCookie)
    }

    @Test(
        "Firebase App Check: typ required, the project number's issuer, either project audience, sub the app ID, RS256 only"
    )
    func firebaseAppCheck() throws {
        func payload(
            iss: String = "https://firebaseappcheck.googleapis.com/123",
            aud: String = #"["projects/123","projects/p-1"]"#, sub: String = #""1:123:ios:abc""#
        ) -> String {
            #"{"iss":"\#(iss)","aud":\#(aud),"sub":\#(sub),"exp":1700003600,"iat":1700000000}"#
        }
        let typed = #"{"kid":"rsa-a","alg":"RS256","typ":"JWT"}"#
        let appCheck: Preset = { _ in .firebaseAppCheck(projectNumber: "123", project: "p-1") }
        let token = try Self.verify(appCheck, payload(), audiences: [], header: typed).get()
        #expect(token.provider(as: FirebaseAppCheckClaims.self)?.appID == "1:123:ios:abc")
        #expect(token.provider(as: FirebaseClaims.self) == nil)
        #expect(Self.reason(Self.verify(appCheck, payload(), audiences: [])) == "header_invalid")  // no typ
        #expect(
            Self.reason(
                Self.verify(
                    appCheck, payload(), audiences: [], header: #"{"kid":"rsa-a","alg":"RS256","typ":"at+jwt"}"#))
                == "header_invalid")
        #expect(
            Self.reason(
                Self.verify(
                    appCheck, payload(iss: "https://firebaseappcheck.googleapis.com/999"), audiences: [], header: typed)
            ) == "issuer_mismatch")
        #expect(
            Self.reason(Self.verify(appCheck, payload(aud: #"["projects/999"]"#), audiences: [], header: typed))
                == "audience_mismatch")
        #expect(
            Self.reason(Self.verify(appCheck, payload(aud: #""projects/p-1""#), audiences: [], header: typed)) == nil)
        #expect(Self.reason(Self.verify(appCheck, payload(sub: #""""#), audiences: [], header: typed)) == "claim_type")
        #expect(Self.reason(Self.verify(appCheck, payload(sub: "7"), audiences: [], header: typed)) == "claim_type")
        // Without the project ID, only projects/<number> is accepted.
        let byNumber: Preset = { _ in .firebaseAppCheck(projectNumber: "123") }
        #expect(
            Self.reason(Self.verify(byNumber, payload(aud: #"["projects/p-1"]"#), audiences: [], header: typed))
                == "audience_mismatch")
        #expect(
            Self.reason(Self.verify(byNumber, payload(aud: #"["projects/123"]"#), audiences: [], header: typed)) == nil)
        let es256 = TokenFactory.token(
            header: #"{"kid":"ec-a","alg":"ES256","typ":"JWT"}"#, payload: payload(), signer: TokenFactory.ec)
        let verifier = Verifier(
            keys: TokenFactory.keys,
            policy: VerificationPolicy.firebaseAppCheck(projectNumber: "123").clock { Self.now })
        #expect(throws: VerificationError(.unsupportedAlgorithm)) { try verifier.verify(es256) }
    }

    @Test("Firebase phone numbers: ES256 with typ and kid, issuer and audience from the project, sub the phone number")
    func firebasePhoneNumber() throws {
        let issuer = "https://fpnv.googleapis.com/projects/p-1"
        func token(
            header: String = #"{"kid":"ec-a","alg":"ES256","typ":"JWT"}"#, iss: String = issuer, aud: String = issuer,
            sub: String = "+15555550100"
        ) -> String {
            TokenFactory.token(
                header: header,
                payload: #"{"iss":"\#(iss)","aud":"\#(aud)","sub":"\#(sub)","exp":1700003600,"iat":1700000000}"#,
                signer: TokenFactory.ec)
        }
        // A key set of the one P-256 key, so that a token without kid would otherwise find its key.
        let keys = try JWKSet(json: Array("{\"keys\":[\(TokenFactory.ec.jwkJSON)]}".utf8))
        let verifier = Verifier(
            keys: keys, policy: VerificationPolicy.firebasePhoneNumber(project: "p-1").clock { Self.now })
        func reason(_ token: String) -> String? { TokenFactory.reason(token, verifier: verifier) }
        #expect(
            try verifier.verify(token()).provider(as: FirebasePhoneNumberClaims.self)?.phoneNumber == "+15555550100")
        #expect(reason(token(header: #"{"alg":"ES256","typ":"JWT"}"#)) == "header_invalid")
        #expect(reason(token(header: #"{"kid":"ec-a","alg":"ES256"}"#)) == "header_invalid")
        #expect(reason(token(aud: "https://fpnv.googleapis.com/projects/p-2")) == "audience_mismatch")
        // The audience the token names is not trusted: both come from configuration.
        #expect(
            reason(
                token(iss: "https://fpnv.googleapis.com/projects/p-2", aud: "https://fpnv.googleapis.com/projects/p-2"))
                == "issuer_mismatch")
        #expect(reason(token(sub: "")) == "claim_type")
        #expect(VerificationPolicy.firebasePhoneNumber(project: "p-1").algorithms == [.es256])
    }

    @Test("Google: both issuer spellings; hosted-domain and authorized-party checks; email_verified typed")
    func google() throws {
        func payload(iss: String, hd: String = "example.com", azp: String = "client-1") -> String {
            #"{"iss":"\#(iss)","aud":"client-1","azp":"\#(azp)","exp":1700003600,"iat":1700000000,"sub":"1","email":"a@example.com","email_verified":"true","hd":"\#(hd)"}"#
        }
        for issuer in ["https://accounts.google.com", "accounts.google.com"] {
            let token = try Self.verify(Self.google(), payload(iss: issuer), audiences: ["client-1"]).get()
            #expect(token.typed["email_verified"] == .bool(true))
        }
        #expect(
            Self.reason(
                Self.verify(Self.google(), payload(iss: "https://accounts.google.com.evil"), audiences: ["client-1"]))
                == "issuer_mismatch")
        #expect(
            Self.reason(
                Self.verify(
                    Self.google(hostedDomain: "example.com"), payload(iss: "accounts.google.com"),
                    audiences: ["client-1"])) == nil)
        #expect(
            Self.reason(
                Self.verify(
                    Self.google(hostedDomain: "corp.example"), payload(iss: "accounts.google.com"),
                    audiences: ["client-1"])) == "hosted_domain_mismatch")
        #expect(
            Self.reason(
                Self.verify(
                    Self.google(authorizedParty: "client-2"), payload(iss: "accounts.google.com"),
                    audiences: ["client-1"])) == "audience_mismatch")
    }

    @Test("generic OIDC: the configured issuer and audiences")
    func oidc() throws {
        let payload =
            #"{"iss":"https://login.example.com","aud":"api","exp":1700003600,"sub":"u","email_verified":false}"#
        let token = try Self.verify(Self.oidc(issuer: "https://login.example.com"), payload, audiences: ["api"]).get()
        #expect(token.typed["email_verified"] == .bool(false))
        #expect(
            Self.reason(Self.verify(Self.oidc(issuer: "https://other.example.com"), payload, audiences: ["api"]))
                == "issuer_mismatch")
    }

    @Test("Apple client secret: an ES256 JWT that verifies with the key's public half, with the claims Apple requires")
    func clientSecret() throws {
        let signer = TokenFactory.Signer(
            kid: "KEY1234567", algorithm: .es256, key: try EVPPrivateKey.generateEC(curve: "P-256"))
        let pem = signer.key.pkcs8PEM()
        #expect(pem.starts(with: Array("-----BEGIN PRIVATE KEY-----".utf8)))
        let secret = try AppleClientSecret.make(
            teamID: "TEAM123456", keyID: "KEY1234567", clientID: "com.example.web", privateKeyPEM: pem, lifetime: 3600,
            now: Self.now)
        let keys = try JWKSet(json: Array("{\"keys\":[\(signer.jwkJSON)]}".utf8))
        let verifier = Verifier(
            keys: keys, issuer: "TEAM123456", audiences: ["https://appleid.apple.com"], clock: { Self.now })
        let verified = try verifier.verify(secret)
        #expect(verified.algorithm == .es256)
        #expect(verified.keyID == "KEY1234567")
        #expect(verified.claims.subject == "com.example.web")
        #expect(verified.claims.expiresAt == Self.now + 3600)
        func failure(_ key: [UInt8], lifetime: Double = 3600, teamID: String = "T") -> AppleClientSecret.Failure? {
            do {
                _ = try AppleClientSecret.make(
                    teamID: teamID, keyID: "K", clientID: "C", privateKeyPEM: key, lifetime: lifetime)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure(pem, lifetime: 15_777_001)?.code == .invalidLifetime)
        #expect(failure(pem, teamID: "")?.code == .missingIdentifier)
        // A .p8 that is not one is named as such, whatever it holds, never with OpenSSL's decoder text.
        let publicKeyPEM = Array("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQ==\n-----END PUBLIC KEY-----\n".utf8)
        let truncated = Array(pem.prefix(pem.count / 2))
        for bad in [Array("not a key".utf8), [], publicKeyPEM, truncated, Array(signer.jwkJSON.utf8)] {
            let failure = try #require(failure(bad))
            #expect(failure.code == .keyNotPKCS8)
            #expect(failure.code.rawValue == "key_not_pkcs8")
            #expect(
                failure.description
                    == "the key is not a PKCS#8 EC private key (an Apple .p8 file holds one, as PEM between "
                    + "-----BEGIN PRIVATE KEY----- and -----END PRIVATE KEY-----)")
        }
        let rsa = failure(try EVPPrivateKey.generateRSA(bits: 2048).pkcs8PEM())
        #expect(rsa?.code == .keyNotP256)
        #expect(rsa?.description == "the key is not an EC P-256 key (Apple's .p8 keys are)")
        #expect(failure(try EVPPrivateKey.generateEC(curve: "P-384").pkcs8PEM())?.code == .keyNotP256)
    }

    @Test("typed claims per provider: provider(as:) gives the provider's own type, nil for another's")
    func typedProviderClaims() throws {
        let apple = try Self.verify(
            Self.apple(), Self.apple(#","email_verified":"true","is_private_email":"false","real_user_status":2"#),
            nonce: "raw-1"
        ).get()
        let claims = try #require(apple.provider(as: AppleIdentityClaims.self))
        #expect(claims.emailVerified == true && claims.isPrivateEmail == false && claims.realUserStatus == 2)
        #expect(apple.provider(as: FirebaseClaims.self) == nil)
        #expect(apple.provider(as: GoogleClaims.self) == nil)
        let firebasePayload =
            #"{"iss":"https://securetoken.google.com/p-1","aud":"p-1","exp":1700001500,"iat":1700000900,"auth_time":1700000890,"sub":"uid-7","email":"a@b.c","firebase":{"sign_in_provider":"apple.com","identities":{}}}"#
        let firebase = try Self.verify(Self.firebase(project: "p-1"), firebasePayload).get()
        let typed = try #require(firebase.provider(as: FirebaseClaims.self))
        #expect(typed.uid == "uid-7" && typed.signInProvider == "apple.com" && typed.authTime == 1_700_000_890)
        #expect(firebase.provider(as: AppleIdentityClaims.self) == nil)
        let google = try Self.verify(
            Self.google(),
            #"{"iss":"accounts.google.com","aud":"com.example.app","exp":1700001500,"iat":1700000900,"sub":"1","hd":"example.com","name":"A"}"#
        ).get()
        #expect(google.provider(as: GoogleClaims.self)?.hostedDomain == "example.com")
        let plain = try Self.verify(
            { .generic(issuer: "https://appleid.apple.com", audiences: $0) }, Self.apple(), nonce: "raw-1"
        ).get()
        #expect(plain.provider(as: AppleIdentityClaims.self) == nil && plain.provider(as: OIDCClaims.self) == nil)
    }

    @Test(
        "profiles by name resolve through the library, as the CLI's --profile does: each registered profile with the settings it declares required, none without one of them"
    )
    func profilesByName() throws {
        #expect(VerificationPolicy.profileNames == ProviderRegistry.profiles.map { $0.name })
        #expect(Set(VerificationPolicy.profileNames).count == VerificationPolicy.profileNames.count)
        func sample(_ setting: ProfileSetting) -> ProfileSettingValue {
            switch setting.kind {
            case .text: .text("https://i")
            case .texts: .texts(["a"])
            case .positiveInteger: .integer(1)
            case .choice(let choices): .text(choices[0])
            case .flag: .flag
            case .files: .files([])
            }
        }
        for profile in ProviderRegistry.profiles {
            // Audiences: a profile that takes them accepts no token without one.
            let required = profile.requiredSettings(forService: false)
                .union(profile.settings.contains(.audiences) ? [.audiences] : [])
            var settings = VerificationPolicy.ProfileSettings()
            for setting in required { settings[setting] = sample(setting) }
            #expect(try VerificationPolicy.profile(named: profile.name, settings).rules.profileName == profile.name)
            for setting in required {
                var without = settings
                without[setting] = nil
                #expect(throws: VerificationPolicy.ProfileError.self, "\(profile.name) without \(setting.name)") {
                    try VerificationPolicy.profile(named: profile.name, without)
                }
            }
        }
        #expect(try VerificationPolicy.profile(named: "apple", .init(audiences: ["a"])).nonceRequirement == .required)
        for name in ["firebase", "firebase-session", "firebase-phone"] {
            #expect(throws: VerificationPolicy.ProfileError.self) {
                try VerificationPolicy.profile(named: name, .init(projectNumber: "1"))
            }
        }
        #expect(throws: VerificationPolicy.ProfileError.self) {
            try VerificationPolicy.profile(named: "firebase-app-check", .init(project: "p"))
        }
        #expect(throws: VerificationPolicy.ProfileError.self) {
            try VerificationPolicy.profile(named: "oidc", .init(audiences: ["a"]))
        }
        #expect(throws: VerificationPolicy.ProfileError.self) {
            try VerificationPolicy.profile(named: "bogus", .init())
        }
        #expect(ProviderRules.google(hostedDomain: "x") != ProviderRules.google())
        #expect(ProviderRules.appleIdentityToken() == .appleIdentityToken(acceptMissingNonceWhenUnsupported: false))
    }
}

extension VerifiedToken {
    /// The provider claims under their JWT names, with `sub` (and Firebase's `uid`), as the CLI prints them.
    var typed: [String: JSONValue] {
        var members = provider.members
        if let subject = claims.subject {
            members["sub"] = .string(subject)
            members["uid"] = .string(subject)
        }
        return members
    }
}
