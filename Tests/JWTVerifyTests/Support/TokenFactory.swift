@testable import JWTVerify

/// Keys generated once per test process, and tokens signed with them from literal JSON text, so
/// every byte of a test token is visible in the test.
enum TokenFactory {
    struct Signer: Sendable {
        let kid: String
        let algorithm: SignatureAlgorithm
        let key: EVPPrivateKey
        /// The public JWK members plus kid, use and alg, as JSON text.
        var jwkJSON: String {
            var text = JSONText()
            text.beginObject()
            for (name, value) in key.publicJWKMembers() {
                text.key(name)
                text.string(value)
            }
            text.key("kid")
            text.string(kid)
            text.key("use")
            text.string("sig")
            text.key("alg")
            text.string(algorithm.name)
            text.endObject()
            return text.string
        }
    }

    static let rsa = Signer(kid: "rsa-a", algorithm: .rs256, key: try! EVPPrivateKey.generateRSA(bits: 2048))
    static let rsaB = Signer(kid: "rsa-b", algorithm: .rs256, key: try! EVPPrivateKey.generateRSA(bits: 2048))
    static let ec = Signer(kid: "ec-a", algorithm: .es256, key: try! EVPPrivateKey.generateEC(curve: "P-256"))

    /// The three keys as a JWKS document.
    static var jwksJSON: String { "{\"keys\":[\(rsa.jwkJSON),\(rsaB.jwkJSON),\(ec.jwkJSON)]}" }

    /// The three keys as a set.
    static let keys: JWKSet = try! JWKSet(json: Array(jwksJSON.utf8))

    static let issuer = "https://appleid.apple.com"
    static let audience = "com.example.app"
    static let now = 1_700_001_000.0

    /// A verifier over ``keys`` with a fixed clock at ``now``.
    static func verifier(leeway: Double = 60, algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed) -> Verifier {
        Verifier(keys: keys, issuer: issuer, audiences: [audience], algorithms: algorithms, leeway: leeway, clock: { now })
    }

    /// Apple-shaped claims as JSON text, with `extra` members appended verbatim.
    static func claims(exp: String = "1700003600", iat: String = "1700000000", extra: String = "") -> String {
        #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(exp),"iat":\#(iat),"sub":"001234.abc.1234""#
            + (extra.isEmpty ? "" : "," + extra) + "}"
    }

    /// A compact token over exactly `header` and `payload` text, signed by `signer` with `algorithm`.
    static func token(header: String? = nil, payload: String, signer: Signer = rsa, algorithm: SignatureAlgorithm? = nil) -> String {
        let alg = algorithm ?? signer.algorithm
        let headerText = header ?? #"{"kid":"\#(signer.kid)","alg":"\#(alg.name)"}"#
        let signingInput = Base64URL.encode(Array(headerText.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signature = try! signer.key.sign(Array(signingInput.utf8), algorithm: alg)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The reason `token` is rejected with, or `nil` when accepted.
    static func reason(_ token: String, nonce: String? = nil, verifier: Verifier = verifier()) -> String? {
        do {
            _ = try verifier.verify(token, nonce: nonce)
            return nil
        } catch {
            return error.reason.rawValue
        }
    }
}
