import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// DPoP proofs (RFC 9449) through `Verifier.verify(_:dpop:at:)`: the RFC's example, generated
/// proofs per algorithm, every reason with its detail, the modes, replay and the token cache.
@Suite("DPoP proofs")
struct DPoPProofTests {
    typealias F = DPoPProofFactory

    /// The verdict of `token` with `proof` for `method` and `uri` (`nil`: no proof) by `verifier`.
    static func verdict(
        _ token: String, proof: String?, method: String = "GET", uri: String = F.uri,
        verifier: Verifier = F.verifier(.allowed), at time: Double? = nil
    ) -> Result<VerifiedToken, VerificationError> {
        let dpop = proof.map { DPoPRequest(proof: $0, method: method, uri: uri) }
        do {
            return .success(try verifier.verify(token, dpop: dpop, at: time))
        } catch {
            return .failure(error)
        }
    }

    /// The reason and detail of a refusal; `nil` when accepted.
    static func refusal(_ result: Result<VerifiedToken, VerificationError>) -> (String, String)? {
        guard case .failure(let error) = result else { return nil }
        return (error.reason.rawValue, error.detail)
    }

    /// A token bound to `signer` and a valid proof for it, with `claims` changed by the caller.
    static func bound(_ signer: TokenFactory.Signer = F.ec) -> String {
        F.accessToken(boundTo: F.thumbprint(signer))
    }

    // RFC 9449 §4.1's example proof, as the RFC prints it (the same bytes as every DPoP test
    // suite that carries it: IdentityServer, go-oidc, the Rust and Go verifiers).
    static let rfcProof =
        "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0Rs"
        + "cEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2"
        + "In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2"
        + "VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nf"
        + "bV37x"
        + "RZT3Lg"

    @Test("RFC 9449 §4.1's example proof verifies at its iat for POST https://server.example.com/token")
    func rfcExample() throws {
        let policy = VerificationPolicy.accessToken(issuer: F.issuer, audiences: [F.audience]).dpop(.allowed)
        let request = DPoPRequest(proof: Self.rfcProof, method: "POST", uri: "https://server.example.com/token")
        let proof = try DPoPProof.check(request, token: nil, thumbprint: nil, policy: policy, now: 1_562_262_616).get()
        // RFC 9449 §6.1's cnf.jkt for the example key.
        #expect(proof.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(proof.expiry == 1_562_262_616 + 60 + 60)
        let get = DPoPRequest(proof: Self.rfcProof, method: "GET", uri: "https://server.example.com/token")
        let refused = DPoPProof.check(get, token: nil, thumbprint: nil, policy: policy, now: 1_562_262_616)
        guard case .failure(let error) = refused else {
            Issue.record("GET accepted")
            return
        }
        #expect(
            error.reason == .dpopMismatch
                && error.detail == #"the proof's htm is "POST"; the request's method is "GET""#)
        let late = DPoPProof.check(request, token: nil, thumbprint: nil, policy: policy, now: 1_562_262_616 + 121)
        guard case .failure(let old) = late else {
            Issue.record("an old proof accepted")
            return
        }
        #expect(
            old.reason == .dpopInvalid
                && old.detail == "the proof was made 121 s ago; the window is 60 s plus 60 s leeway")
    }

    @Test("RFC 7638 §3.1's example key has the thumbprint the RFC gives", arguments: [true, false])
    func rfc7638(throughKeySet: Bool) throws {
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZC"
            + "iFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJ"
            + "ZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBn"
            + "iIqbw0Ls1jF44-csFCur-"
            + "kEgU8awapJzKnqDKgw"
        let thumbprint: String
        if throughKeySet {
            // The RFC's JWK, members in its order, with alg and kid (not part of the thumbprint).
            let json = #"{"keys":[{"kty":"RSA","n":"\#(n)","e":"AQAB","alg":"RS256","kid":"2011-04-29"}]}"#
            thumbprint = try #require(try JWKSet(json: Array(json.utf8)).keys[0].thumbprint)
        } else {
            thumbprint = JWKThumbprint.rsa(modulus: Base64URL.decode(n.utf8)!, exponent: [1, 0, 1])
        }
        #expect(thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("a generated proof verifies with its bound token", arguments: ["ES256", "RS256", "EdDSA"])
    func generated(_ name: String) throws {
        let signer = [F.ec, F.rsa, F.ed].first { $0.algorithm.name == name }!
        let token = Self.bound(signer)
        let proof = F.proof(signer, claims: F.claims(token: token))
        let verified = try Self.verdict(token, proof: proof).get()
        #expect(verified.provider(as: AccessTokenClaims.self)?.keyThumbprint == F.thumbprint(signer))
        // Under `required` too; and a proof for POST with a query and fragment on the request's URI.
        let post = F.proof(signer, claims: F.claims(htm: "POST", jti: "proof-2", token: token))
        #expect(
            Self.refusal(
                Self.verdict(
                    token, proof: post, method: "POST", uri: F.uri + "?page=2#top", verifier: F.verifier(.required)))
                == nil)
    }

    @Test("modes: off refuses a bound token and ignores proofs; allowed and required need proofs where they say")
    func modes() {
        let unbound = F.accessToken(boundTo: nil)
        let token = Self.bound()
        let proof = F.proof(claims: F.claims(token: token))
        let off = F.verifier(.off)
        #expect(Self.refusal(Self.verdict(unbound, proof: nil, verifier: off)) == nil)
        #expect(
            Self.refusal(Self.verdict(token, proof: proof, verifier: off))!
                == ("dpop_missing", "the token is bound to a key (cnf.jkt) and this policy takes no DPoP proofs"))
        #expect(off.proofReplay == nil)
        // The plain entry point applies the same rules.
        #expect(TokenFactory.failure(token, verifier: off)?.reason == .dpopMissing)
        let allowed = F.verifier(.allowed)
        #expect(Self.refusal(Self.verdict(unbound, proof: nil, verifier: allowed)) == nil)
        #expect(
            Self.refusal(Self.verdict(token, proof: nil, verifier: allowed))!
                == ("dpop_missing", "the token is bound to a key (cnf.jkt) and the request has no DPoP proof"))
        let unboundProof = F.proof(claims: F.claims(token: unbound))
        #expect(
            Self.refusal(Self.verdict(unbound, proof: unboundProof, verifier: allowed))!
                == (
                    "dpop_mismatch",
                    "the token has no cnf.jkt: it is not bound to the proof's key (thumbprint \(F.thumbprint(F.ec)))"
                ))
        let required = F.verifier(.required)
        #expect(
            Self.refusal(Self.verdict(unbound, proof: nil, verifier: required))!
                == ("dpop_missing", "the request has no DPoP proof, and one is required"))
        #expect(TokenFactory.failure(unbound, verifier: required)?.reason == .dpopMissing)
        // The token is verified first: a bad token is its own reason, whatever the proof.
        #expect(Self.refusal(Self.verdict(token + "x", proof: "junk", verifier: required))?.0 == "malformed")
    }

    /// Each refusal of the proof checks, in their order, with its exact detail.
    static var refusals: [(String, (String) -> String, String, String)] {
        let ec = F.ec
        let header = F.header(ec)
        func signed(_ claims: String, header: String = header, signer: TokenFactory.Signer = ec) -> String {
            F.proof(signer, header: header, claims: claims)
        }
        let jwk = F.jwk(ec)
        return [
            ("not a JWS", { _ in "a.b" }, "dpop_invalid", "the proof has 2 segment(s), not 3"),
            ("a JWE", { _ in "a.b.c.d.e" }, "dpop_invalid", "the proof is a JWE (5 segments), not a compact JWS"),
            (
                "header not base64url", { _ in "e30=.e30.AA" }, "dpop_invalid",
                "the proof's header is not strict base64url"
            ),
            (
                "no typ", { t in signed(F.claims(token: t), header: #"{"alg":"ES256","jwk":\#(jwk)}"#) },
                "dpop_invalid",
                "the proof has no typ (dpop+jwt required)"
            ),
            (
                "typ JWT", { t in signed(F.claims(token: t), header: F.header(ec, typ: "JWT")) }, "dpop_invalid",
                #"the proof's typ is "JWT", not "dpop+jwt""#
            ),
            (
                "typ in capitals", { t in signed(F.claims(token: t), header: F.header(ec, typ: "DPoP+JWT")) },
                "dpop_invalid", #"the proof's typ is "DPoP+JWT", not "dpop+jwt""#
            ),
            (
                "alg none",
                { t in signed(F.claims(token: t), header: #"{"typ":"dpop+jwt","alg":"none","jwk":\#(jwk)}"#) },
                "dpop_invalid", "the proof's alg is none: a proof must be signed"
            ),
            (
                "alg HS256",
                { t in signed(F.claims(token: t), header: #"{"typ":"dpop+jwt","alg":"HS256","jwk":\#(jwk)}"#) },
                "dpop_invalid", #"the proof's alg "HS256" is symmetric: a proof needs an asymmetric one"#
            ),
            (
                "alg unknown",
                { t in signed(F.claims(token: t), header: #"{"typ":"dpop+jwt","alg":"ES256K","jwk":\#(jwk)}"#) },
                "dpop_invalid", #"the proof's alg "ES256K" is not supported"#
            ),
            (
                "crit",
                { t in
                    signed(
                        F.claims(token: t),
                        header: #"{"typ":"dpop+jwt","alg":"ES256","crit":["x"],"x":1,"jwk":\#(jwk)}"#)
                },
                "dpop_invalid", "the proof's header has crit: no extension is supported"
            ),
            (
                "no jwk", { t in signed(F.claims(token: t), header: #"{"typ":"dpop+jwt","alg":"ES256"}"#) },
                "dpop_invalid", "the proof's header has no jwk"
            ),
            (
                "private jwk",
                { t in
                    signed(
                        F.claims(token: t),
                        header: #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(jwk.dropLast()),"d":"AAAA"}}"#)
                }, "dpop_invalid", "the proof's jwk has the private member d: only a public key may be sent"
            ),
            (
                "symmetric jwk",
                { t in
                    signed(
                        F.claims(token: t), header: #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"oct","k":"AAAA"}}"#)
                },
                "dpop_invalid", "the proof's jwk has the private member k: only a public key may be sent"
            ),
            (
                "jwk for another alg",
                { t in
                    signed(
                        F.claims(token: t), header: #"{"typ":"dpop+jwt","alg":"RS256","jwk":\#(jwk)}"#, signer: F.rsa)
                },
                "dpop_invalid", "the proof's jwk cannot verify it: RS256 needs an RSA key; this key is EC"
            ),
            (
                "signed by another key",
                { t in signed(F.claims(token: t), header: F.header(ec), signer: TokenFactory.ec) }, "dpop_invalid",
                "the proof's signature does not verify with the jwk of its header"
            ),
            (
                "no htm", { t in signed(F.claims(token: t).replacingOccurrences(of: #""htm":"GET","#, with: "")) },
                "dpop_invalid", "the proof's htm is missing or not a string"
            ),
            (
                "htm another method", { t in signed(F.claims(htm: "get", token: t)) }, "dpop_mismatch",
                #"the proof's htm is "get"; the request's method is "GET""#
            ),
            (
                "htu not a URI", { t in signed(F.claims(htu: "/orders", token: t)) }, "dpop_invalid",
                #"the proof's htu "/orders" is not an absolute URI"#
            ),
            (
                "htu another path", { t in signed(F.claims(htu: "https://api.example.com/orders/7", token: t)) },
                "dpop_mismatch",
                #"the proof's htu is "https://api.example.com/orders/7"; the request's URI is "#
                    + #""https://api.example.com/orders" (both normalised, without query and fragment)"#
            ),
            (
                "iat ahead", { t in signed(F.claims(iat: F.now + 5, token: t)) }, "dpop_invalid",
                "the proof's iat is 5 s ahead of now (leeway 0 s)"
            ),
            (
                "iat too old", { t in signed(F.claims(iat: F.now - 61, token: t)) }, "dpop_invalid",
                "the proof was made 61 s ago; the window is 60 s plus 0 s leeway"
            ),
            (
                "iat a string",
                { t in
                    signed(
                        F.claims(token: t).replacingOccurrences(of: #""iat":1700001000"#, with: #""iat":"1700001000""#))
                },
                "dpop_invalid", "the proof's iat is missing or not a number"
            ),
            (
                "no jti", { t in signed(F.claims(token: t).replacingOccurrences(of: #""jti":"proof-1","#, with: "")) },
                "dpop_invalid", "the proof's jti is missing, empty or not a string"
            ),
            (
                "no ath", { _ in signed(F.claims()) }, "dpop_invalid",
                "the proof's ath is missing, and a proof sent with an access token needs it"
            ),
            (
                "ath of another token", { _ in signed(F.claims(token: F.accessToken(boundTo: nil))) }, "dpop_mismatch",
                "the proof's ath is not the base64url SHA-256 of the access token"
            ),
        ]
    }

    @Test("every check's refusal, with its reason and detail")
    func everyRefusal() {
        let token = Self.bound()
        for (name, make, reason, detail) in Self.refusals {
            let verdict = Self.refusal(Self.verdict(token, proof: make(token)))
            #expect(verdict?.0 == reason && verdict?.1 == detail, "\(name): \(String(describing: verdict))")
        }
        // Bound to another key: the proof is good, the binding is not.
        let other = F.accessToken(boundTo: F.thumbprint(F.rsa))
        #expect(
            Self.refusal(Self.verdict(other, proof: F.proof(claims: F.claims(token: other))))!
                == (
                    "dpop_mismatch",
                    "the token's cnf.jkt \"\(F.thumbprint(F.rsa))\" is not the thumbprint of the proof's jwk "
                        + "(\(F.thumbprint(F.ec)))"
                ))
        // An algorithm off the proof allow-list.
        let esOnly = F.verifier(DPoPPolicy(mode: .allowed, algorithms: [.es256]))
        let rsaToken = Self.bound(F.rsa)
        #expect(
            Self.refusal(
                Self.verdict(rsaToken, proof: F.proof(F.rsa, claims: F.claims(token: rsaToken)), verifier: esOnly))!
                == ("dpop_invalid", "the proof's alg RS256 is not on the proof allow-list (ES256)"))
    }

    @Test("a proof is accepted once: the same proof again is dpop_replayed, a new jti is fine")
    func replay() {
        let verifier = F.verifier(.allowed)
        let token = Self.bound()
        let proof = F.proof(claims: F.claims(token: token))
        #expect(Self.refusal(Self.verdict(token, proof: proof, verifier: verifier)) == nil)
        #expect(
            Self.refusal(Self.verdict(token, proof: proof, verifier: verifier))!
                == ("dpop_replayed", "the proof's jti was already accepted within its window"))
        #expect(
            Self.refusal(
                Self.verdict(token, proof: F.proof(claims: F.claims(jti: "proof-2", token: token)), verifier: verifier))
                == nil)
        #expect(verifier.proofReplay?.count == 2)
        // A proof refused for another reason is not recorded: corrected, its jti is still new.
        let wrongMethod = F.proof(claims: F.claims(htm: "POST", jti: "proof-3", token: token))
        #expect(Self.refusal(Self.verdict(token, proof: wrongMethod, verifier: verifier))?.0 == "dpop_mismatch")
        #expect(Self.refusal(Self.verdict(token, proof: wrongMethod, method: "POST", verifier: verifier)) == nil)
        // Another verifier has its own cache.
        #expect(Self.refusal(Self.verdict(token, proof: proof, verifier: F.verifier(.allowed))) == nil)
    }

    @Test("the token cache never skips the proof: a hit with a new proof is checked, a replayed proof refused")
    func cachedToken() throws {
        let verifier = F.verifier(.allowed, cache: .init(capacity: 16))
        let token = Self.bound()
        #expect(
            Self.refusal(
                Self.verdict(token, proof: F.proof(claims: F.claims(jti: "a", token: token)), verifier: verifier))
                == nil)
        #expect(verifier.cache?.counters.insertions == 1)
        let second = F.proof(claims: F.claims(jti: "b", token: token))
        #expect(Self.refusal(Self.verdict(token, proof: second, verifier: verifier)) == nil)
        #expect(verifier.cache?.counters.hits == 1)
        #expect(Self.refusal(Self.verdict(token, proof: second, verifier: verifier))?.0 == "dpop_replayed")
        let wrong = F.proof(claims: F.claims(htm: "DELETE", jti: "c", token: token))
        #expect(Self.refusal(Self.verdict(token, proof: wrong, verifier: verifier))?.0 == "dpop_mismatch")
        #expect(Self.refusal(Self.verdict(token, proof: nil, verifier: verifier))?.0 == "dpop_missing")
        #expect(verifier.cache?.counters.hits == 4)
    }

    @Test("a full replay cache refuses new proofs until old ones leave their window (fail-closed)")
    func fullCache() {
        let verifier = F.verifier(DPoPPolicy(mode: .allowed, replayCapacity: 2))
        let token = Self.bound()
        for jti in ["1", "2"] {
            #expect(
                Self.refusal(
                    Self.verdict(token, proof: F.proof(claims: F.claims(jti: jti, token: token)), verifier: verifier))
                    == nil)
        }
        let third = F.proof(claims: F.claims(jti: "3", token: token))
        #expect(
            Self.refusal(Self.verdict(token, proof: third, verifier: verifier))!
                == (
                    "dpop_replayed",
                    "the replay cache is full of proofs still within their window, so this one cannot be recorded "
                        + "and is refused"
                ))
        // 61 s later the first two are past their window: a fresh proof is recorded.
        let later = F.proof(claims: F.claims(iat: F.now + 61, jti: "4", token: token))
        #expect(Self.refusal(Self.verdict(token, proof: later, verifier: verifier, at: F.now + 61)) == nil)
        #expect(verifier.proofReplay?.count == 1)
    }

    @Test("the replay cache, alone: replayed within the window, forgotten after it, bounded")
    func replayCache() {
        let cache = DPoPReplayCache(capacity: 3)
        let a = Array("a".utf8).withUnsafeBytes { SHA256Digest(hashing: $0) }
        let b = Array("b".utf8).withUnsafeBytes { SHA256Digest(hashing: $0) }
        #expect(cache.record(a, until: 10, now: 0) == .recorded)
        #expect(cache.record(a, until: 10, now: 9) == .replayed)
        #expect(cache.record(b, until: 20, now: 9) == .recorded)
        #expect(cache.record(a, until: 30, now: 10) == .recorded)
        #expect(cache.count == 2)
        for index in 0..<1000 {
            let digest = withUnsafeBytes(of: index) { SHA256Digest(hashing: $0) }
            _ = cache.record(digest, until: Double(index) + 40, now: Double(index) + 30)
        }
        #expect(cache.count <= 3)
    }
}
