package import JWTVerify
import JWTVerifyKeyMaking

/// DPoP proofs (RFC 9449) signed with keys generated once per test process, and access tokens
/// bound to them, from literal JSON text.
package enum DPoPProofFactory {
    /// The proof keys: one per algorithm family.
    package static let ec = TokenFactory.Signer(
        kid: "dpop-ec", algorithm: .es256, key: try! EVPPrivateKey.generateEC(curve: "P-256"))
    package static let rsa = TokenFactory.Signer(
        kid: "dpop-rsa", algorithm: .rs256, key: try! EVPPrivateKey.generateRSA(bits: 2048))
    package static let ed = TokenFactory.Signer(
        kid: "dpop-ed", algorithm: .edDSA, key: try! EVPPrivateKey.generateEd25519())

    package static let issuer = "https://auth.example.com"
    package static let audience = "https://api.example.com"
    package static let now = 1_700_001_000.0
    package static let uri = "https://api.example.com/orders"

    /// The public JWK members of `signer`'s key as JSON text (no kid, use or alg).
    package static func jwk(_ signer: TokenFactory.Signer) -> String {
        "{" + signer.key.publicJWKMembers().map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",") + "}"
    }

    /// The RFC 7638 thumbprint of `signer`'s key, as the library computes it.
    package static func thumbprint(_ signer: TokenFactory.Signer) -> String {
        try! JWKSet(json: Array(#"{"keys":[\#(jwk(signer))]}"#.utf8)).keys[0].thumbprint!
    }

    /// base64url(SHA-256(token)).
    package static func ath(_ token: String) -> String {
        Base64URL.encode(MessageDigest.sha256.hash(Array(token.utf8)))
    }

    /// The proof header: `typ`, `alg` and the `jwk` of `signer`.
    package static func header(_ signer: TokenFactory.Signer, typ: String = "dpop+jwt") -> String {
        #"{"typ":"\#(typ)","alg":"\#(signer.algorithm.name)","jwk":\#(jwk(signer))}"#
    }

    /// Proof claims; `ath` for `token` when given.
    package static func claims(
        htm: String = "GET", htu: String = uri, iat: Double = now, jti: String = "proof-1", token: String? = nil,
        extra: String = ""
    ) -> String {
        var members = [#""jti":"\#(jti)""#, #""htm":"\#(htm)""#, #""htu":"\#(htu)""#, #""iat":\#(Int64(iat))"#]
        if let token { members.append(#""ath":"\#(ath(token))""#) }
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A proof over exactly `header` and `claims`, signed by `signer`.
    package static func proof(
        _ signer: TokenFactory.Signer = ec, header: String? = nil, claims: String
    ) -> String {
        TokenFactory.token(header: header ?? self.header(signer), payload: claims, signer: signer)
    }

    /// An RFC 9068 access token signed by ``TokenFactory/rsa``, bound to `boundTo` (its `cnf.jkt`)
    /// when given.
    package static func accessToken(boundTo jkt: String?, jti: String = "at-1") -> String {
        let cnf = jkt.map { #","cnf":{"jkt":"\#($0)"}"# } ?? ""
        let payload =
            #"{"iss":"\#(issuer)","exp":1700003600,"aud":"\#(audience)","sub":"user-5","client_id":"client-9","#
            + #""iat":1700000000,"jti":"\#(jti)","scope":"read"\#(cnf)}"#
        return TokenFactory.token(header: #"{"alg":"RS256","kid":"rsa-a","typ":"at+jwt"}"#, payload: payload)
    }

    /// An access-token verifier over ``TokenFactory/keys`` with `dpop`, its clock at ``now``.
    package static func verifier(
        _ dpop: DPoPPolicy, cache: VerifiedTokenCache.Configuration? = nil, leeway: Double = 0
    ) -> Verifier {
        Verifier(
            keys: TokenFactory.keys,
            policy: VerificationPolicy.accessToken(issuer: issuer, audiences: [audience]).dpop(dpop).leeway(leeway)
                .clock { now },
            cache: cache)
    }
}
