import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// Identifiers are matched by their bytes: Swift's `String` equality is Unicode canonical
/// equivalence, under which "\u{212A}1" (KELVIN SIGN) is "K1" and "\u{E9}" is "e\u{301}".
@Suite("exact bytes")
struct ExactBytesTests {
    static let kelvin = "\u{212A}1"
    static let latinK = "K1"
    /// "é" precomposed and decomposed; "ﬁ" (U+FB01) and "fi" are compatibility-equivalent.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let ligature = "\u{FB01}le"
    static let letters = "file"

    static let keyA = try! EVPPrivateKey.generateRSA(bits: 2048)
    static let keyB = try! EVPPrivateKey.generateRSA(bits: 2048)

    static func signer(_ kid: String, _ key: EVPPrivateKey = keyA) -> TokenFactory.Signer {
        TokenFactory.Signer(kid: kid, algorithm: .rs256, key: key)
    }

    static func keys(_ signers: TokenFactory.Signer...) throws -> JWKSet {
        try JWKSet(json: "{\"keys\":[" + signers.map(\.jwkJSON).joined(separator: ",") + "]}")
    }

    /// The header of a token naming `kid`, written with JSON escapes so the bytes are plain.
    static func header(kid: String, extra: String = "") -> String {
        var text = OutputText()
        text.string(kid)
        return #"{"alg":"RS256","kid":"# + text.string + extra + "}"
    }

    static func reason(
        _ token: String, keys: JWKSet, issuers: [String] = [TokenFactory.issuer],
        audiences: [String] = [TokenFactory.audience]
    ) -> String? {
        let policy = VerificationPolicy(issuers: issuers, audiences: audiences, clock: { TokenFactory.now })
        return TokenFactory.reason(token, verifier: Verifier(keys: keys, policy: policy))
    }

    @Test("the premise: String equality is canonical equivalence; ExactBytes and exactlyEquals are not")
    func premise() {
        #expect(Self.kelvin == Self.latinK)
        #expect(Self.composed == Self.decomposed)
        #expect(ExactBytes(Self.kelvin) != ExactBytes(Self.latinK))
        #expect(ExactBytes(Self.composed) != ExactBytes(Self.decomposed))
        #expect(!exactlyEquals(Self.kelvin, Self.latinK))
        #expect(!exactlyEquals(Self.ligature, Self.letters))
        #expect(exactlyEquals("K1", "K1"))
        #expect(exactlyEquals(nil as String?, nil))
        #expect(!exactlyEquals("", nil))
        #expect(exactlyEquals(Self.kelvin, Array("\u{212A}1".utf8)))
        #expect(!exactlyEquals(Self.kelvin, Array("K1".utf8)))
        let table: [ExactBytes: Int] = [ExactBytes(Self.kelvin): 1, ExactBytes(Self.latinK): 2]
        #expect(table.count == 2)
        #expect(table[ExactBytes("K1")] == 2)
        #expect([Self.latinK].containsExactly("K1"))
        #expect(![Self.latinK].containsExactly(Self.kelvin))
    }

    @Test("a set of configured texts holds each by its bytes: no equivalent spelling, prefix or extension")
    func byteSet() {
        let set = ExactByteSet(["", Self.latinK, Self.composed, "https://appleid.apple.com"])
        for member in ["", Self.latinK, Self.composed, "https://appleid.apple.com"] {
            #expect(set.contains(member), "\(member) not found")
        }
        for stranger in [
            Self.kelvin, Self.decomposed, "K", "K12", "https://appleid.apple.co", "https://appleid.apple.comm", "k1",
        ] {
            #expect(!set.contains(stranger), "\(stranger) found")
        }
        #expect(!ExactByteSet([]).contains(""))
        #expect(!ExactByteSet(["a"]).contains(""))
    }

    @Test("a token whose kid is \\u{212A}1 is unknown_kid under the key K1, and the reverse")
    func kidIsBytes() throws {
        let payload = TokenFactory.claims()
        for (tokenKid, keyKid) in [(Self.kelvin, Self.latinK), (Self.latinK, Self.kelvin)] {
            let keys = try Self.keys(Self.signer(keyKid))
            let token = TokenFactory.token(
                header: Self.header(kid: tokenKid), payload: payload, signer: Self.signer(tokenKid))
            #expect(Self.reason(token, keys: keys) == "unknown_kid")
            #expect(keys.key(withID: tokenKid) == nil)
            let own = TokenFactory.token(
                header: Self.header(kid: keyKid), payload: payload, signer: Self.signer(keyKid))
            #expect(Self.reason(own, keys: keys) == nil)
        }
    }

    @Test("byte-distinct kids K1 and \\u{212A}1 are two kids: no duplicate, each token verified by its own key")
    func distinctKids() throws {
        let keys = try Self.keys(Self.signer(Self.latinK, Self.keyA), Self.signer(Self.kelvin, Self.keyB))
        #expect(keys.keys.count == 2)
        #expect(keys.keys.allSatisfy { $0.unusableReason == nil })
        let payload = TokenFactory.claims()
        let byA = TokenFactory.token(
            header: Self.header(kid: Self.latinK), payload: payload, signer: Self.signer(Self.latinK, Self.keyA))
        let byB = TokenFactory.token(
            header: Self.header(kid: Self.kelvin), payload: payload, signer: Self.signer(Self.kelvin, Self.keyB))
        #expect(Self.reason(byA, keys: keys) == nil)
        #expect(Self.reason(byB, keys: keys) == nil)
        // Each kid picks its own key: key B's signature under kid K1 does not verify.
        let crossed = TokenFactory.token(
            header: Self.header(kid: Self.latinK), payload: payload, signer: Self.signer(Self.latinK, Self.keyB))
        #expect(Self.reason(crossed, keys: keys) == "bad_signature")
        // A real duplicate (the same bytes, different keys) is still one unusable entry.
        let duplicate = try Self.keys(Self.signer(Self.latinK, Self.keyA), Self.signer(Self.latinK, Self.keyB))
        #expect(duplicate.keys.count == 1)
        #expect(duplicate.keys[0].unusableReason?.contains("more than one different key") == true)
    }

    /// Claims with `iss` and `aud` as given (JSON-escaped, so the token carries exactly these bytes).
    static func claims(iss: String = TokenFactory.issuer, aud: String = TokenFactory.audience) -> String {
        var text = OutputText()
        text.beginObject()
        text.key("iss")
        text.string(iss)
        text.key("aud")
        text.string(aud)
        text.key("exp")
        text.integer(1_700_003_600)
        text.endObject()
        return text.string
    }

    @Test(
        "iss and aud are bytes: canonically and compatibility-equivalent spellings do not match",
        arguments: [
            (composed, decomposed), (decomposed, composed), (ligature, letters), (letters, ligature), (kelvin, latinK),
        ])
    func issuerAndAudience(token: String, policy: String) throws {
        let keys = try Self.keys(Self.signer("k"))
        let signer = Self.signer("k")
        let issued = TokenFactory.token(
            header: Self.header(kid: "k"), payload: Self.claims(iss: "https://" + token), signer: signer)
        #expect(Self.reason(issued, keys: keys, issuers: ["https://" + policy]) == "issuer_mismatch")
        #expect(Self.reason(issued, keys: keys, issuers: ["https://" + token]) == nil)
        let audienced = TokenFactory.token(
            header: Self.header(kid: "k"), payload: Self.claims(aud: token), signer: signer)
        #expect(Self.reason(audienced, keys: keys, audiences: [policy]) == "audience_mismatch")
        #expect(Self.reason(audienced, keys: keys, audiences: [token]) == nil)
    }

    @Test("typ is bytes: a fullwidth or otherwise equivalent spelling of JWT is header_invalid")
    func type() throws {
        let keys = try Self.keys(Self.signer("k"))
        for typ in ["\u{FF2A}WT", "JW\u{FF34}", "application/\u{FF4A}wt", "J\u{200B}WT"] {
            var quoted = OutputText()
            quoted.string(typ)
            let token = TokenFactory.token(
                header: Self.header(kid: "k", extra: #","typ":"# + quoted.string), payload: TokenFactory.claims(),
                signer: Self.signer("k"))
            #expect(Self.reason(token, keys: keys) == "header_invalid", "\(typ)")
        }
        let plain = TokenFactory.token(
            header: Self.header(kid: "k", extra: #","typ":"JWT""#), payload: TokenFactory.claims(),
            signer: Self.signer("k"))
        #expect(Self.reason(plain, keys: keys) == nil)
    }

    @Test("JWK members are bytes: kty O\\u{212A}P is not OKP")
    func jwkMembers() throws {
        let okp = try JWKSet(
            json: #"{"kty":"O\u212AP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        #expect(okp.keys[0].unusableReason == #"kty "O\#u{212A}P" is not supported"#)
    }

    @Test("profile and key-set preset names are bytes: firebase-app-chec\\u{212A} names neither")
    func names() {
        let lookalike = "firebase-app-chec\u{212A}"
        #expect(lookalike == "firebase-app-checK")  // canonically equivalent to a capital K
        #expect(ProviderRegistry.profile(named: lookalike) == nil)
        #expect(ProviderRegistry.profile(named: "firebase-app-check") != nil)
        #expect(throws: VerificationPolicy.ProfileError.self) {
            try VerificationPolicy.profile(named: lookalike, .init(projectNumber: "1"))
        }
        #expect(KeySetSource(parsing: lookalike) == .file(lookalike))
        #expect(KeySetSource(parsing: "firebase-app-check") == .firebaseAppCheck)
    }

    @Test("jti must be a string under every policy: a number, object, array, boolean or null is claim_type")
    func jtiIsAString() throws {
        let keys = try Self.keys(Self.signer("k"))
        let policies: [VerificationPolicy] = [
            VerificationPolicy(
                issuers: [TokenFactory.issuer], audiences: [TokenFactory.audience], clock: { TokenFactory.now }),
            VerificationPolicy.oidc(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]).clock {
                TokenFactory.now
            },
            VerificationPolicy.appleIdentityToken(audiences: [TokenFactory.audience], nonce: .checkedWhenGiven).clock {
                TokenFactory.now
            },
            VerificationPolicy(issuers: nil, audiences: nil, clock: { TokenFactory.now }),
        ]
        for policy in policies {
            let verifier = Verifier(keys: keys, policy: policy)
            for jti in ["7", "1.5", #"{"a":1}"#, #"["x"]"#, "true", "false", "null"] {
                let token = TokenFactory.token(
                    header: Self.header(kid: "k"), payload: TokenFactory.claims(extra: #""jti":"# + jti),
                    signer: Self.signer("k"))
                #expect(throws: VerificationError.self) { try verifier.verify(token) }
                do {
                    _ = try verifier.verify(token)
                } catch {
                    #expect(error.reason == .claimType, "\(jti)")
                    #expect(error.detail == "jti is not a string")
                }
            }
            let named = TokenFactory.token(
                header: Self.header(kid: "k"), payload: TokenFactory.claims(extra: #""jti":"id-1""#),
                signer: Self.signer("k"))
            #expect(TokenFactory.reason(named, verifier: verifier) == nil)
        }
    }
}
