package import JWTVerify
import JWTVerifyKeyMaking

/// Keys generated once per test process, and tokens signed with them from literal JSON text, so
/// every byte of a test token is visible in the test.
package enum TokenFactory {
    package struct Signer: Sendable {
        package let kid: String
        package let algorithm: SignatureAlgorithm
        package let key: EVPPrivateKey
        package init(kid: String, algorithm: SignatureAlgorithm, key: EVPPrivateKey) {
            self.kid = kid
            self.algorithm = algorithm
            self.key = key
        }
        /// The private key as PKCS#8 PEM, as an Apple `.p8` file holds it.
        package var privateKeyPEM: [UInt8] { key.pkcs8PEM() }
        /// The public JWK members plus kid, use and alg, as JSON text.
        package var jwkJSON: String {
            var text = OutputText()
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

    package static let rsa = Signer(kid: "rsa-a", algorithm: .rs256, key: try! EVPPrivateKey.generateRSA(bits: 2048))
    package static let rsaB = Signer(kid: "rsa-b", algorithm: .rs256, key: try! EVPPrivateKey.generateRSA(bits: 2048))
    package static let ec = Signer(kid: "ec-a", algorithm: .es256, key: try! EVPPrivateKey.generateEC(curve: "P-256"))

    /// The three keys as a JWKS document.
    package static var jwksJSON: String { "{\"keys\":[\(rsa.jwkJSON),\(rsaB.jwkJSON),\(ec.jwkJSON)]}" }

    /// The three keys as a set.
    package static let keys: JWKSet = try! JWKSet(json: Array(jwksJSON.utf8))

    package static let issuer = "https://appleid.apple.com"
    package static let audience = "com.example.app"
    package static let now = 1_700_001_000.0

    /// A verifier over ``keys`` with a fixed clock at ``now``.
    package static func verifier(
        leeway: Double = 60, algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed
    ) -> Verifier {
        Verifier(
            keys: keys, issuer: issuer, audiences: [audience], algorithms: algorithms, leeway: leeway, clock: { now })
    }

    /// Apple-shaped claims as JSON text, with `extra` members appended verbatim.
    package static func claims(exp: String = "1700003600", iat: String = "1700000000", extra: String = "") -> String {
        #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(exp),"iat":\#(iat),"sub":"001234.abc.1234""#
            + (extra.isEmpty ? "" : "," + extra) + "}"
    }

    /// A compact token over exactly `header` and `payload` text, signed by `signer` with `algorithm`.
    package static func token(
        header: String? = nil, payload: String, signer: Signer = rsa, algorithm: SignatureAlgorithm? = nil
    ) -> String {
        let alg = algorithm ?? signer.algorithm
        let headerText = header ?? #"{"kid":"\#(signer.kid)","alg":"\#(alg.name)"}"#
        let signingInput = Base64URL.encode(Array(headerText.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signature = try! signer.key.sign(Array(signingInput.utf8), algorithm: alg)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// A token naming `kid` with a placeholder signature: unknown kids are rejected before any
    /// signature work, so floods of them need no real signing.
    package static func unsignedToken(kid: String) -> String {
        Base64URL.encode(Array(#"{"kid":"\#(kid)","alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(Array(claims().utf8))
            + ".AAAA"
    }

    /// The reason `token` is rejected with (by `verifier`, with `nonce`, at `time` when given), or
    /// `nil` when accepted.
    package static func reason(
        _ token: String, nonce: String? = nil, verifier: Verifier = verifier(), at time: Double? = nil
    ) -> String? {
        do {
            _ = try verifier.verify(token, nonce: nonce, at: time)
            return nil
        } catch {
            return error.reason.rawValue
        }
    }

    /// The error `verifier` rejects `token` with; `nil` when it verifies.
    package static func failure(_ token: String, verifier: Verifier) -> VerificationError? {
        do {
            _ = try verifier.verify(token)
            return nil
        } catch {
            return error
        }
    }
}
