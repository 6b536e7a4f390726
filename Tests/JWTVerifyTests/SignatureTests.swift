import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

@Suite("signatures")
struct SignatureTests {
    @Test(
        "RS256 and ES256 tokens signed in-process verify",
        arguments: [TokenFactory.rsa, TokenFactory.rsaB, TokenFactory.ec])
    func roundTrip(signer: TokenFactory.Signer) throws {
        let token = TokenFactory.token(payload: TokenFactory.claims(), signer: signer)
        let verified = try TokenFactory.verifier().verify(token)
        #expect(verified.algorithm == signer.algorithm)
        #expect(verified.keyID == signer.kid)
        #expect(verified.payload == Array(TokenFactory.claims().utf8))
    }

    @Test("every other algorithm verifies when allowed, and only when allowed")
    func optionalAlgorithms() throws {
        let cases: [(SignatureAlgorithm, EVPPrivateKey)] = [
            (.rs384, TokenFactory.rsa.key), (.rs512, TokenFactory.rsa.key), (.ps256, TokenFactory.rsa.key),
            (.ps384, TokenFactory.rsa.key), (.ps512, TokenFactory.rsa.key),
            (.es384, try EVPPrivateKey.generateEC(curve: "P-384")),
            (.es512, try EVPPrivateKey.generateEC(curve: "P-521")),
            (.edDSA, try EVPPrivateKey.generateEd25519()),
        ]
        for (algorithm, key) in cases {
            let signer = TokenFactory.Signer(kid: "k", algorithm: algorithm, key: key)
            let keys = try JWKSet(json: Array("{\"keys\":[\(signer.jwkJSON)]}".utf8))
            let token = TokenFactory.token(payload: TokenFactory.claims(), signer: signer)
            let allowing = Verifier(
                keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], algorithms: [algorithm],
                clock: { TokenFactory.now })
            #expect(TokenFactory.reason(token, verifier: allowing) == nil, "\(algorithm)")
            let defaults = Verifier(
                keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now }
            )
            #expect(TokenFactory.reason(token, verifier: defaults) == "unsupported_alg", "\(algorithm)")
        }
    }

    @Test("a changed byte anywhere in the signed input or the signature is bad_signature or worse")
    func tampering() {
        let token = Array(TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.ec).utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var accepted = 0
        for index in stride(from: 0, to: token.count, by: 7) where token[index] != UInt8(ascii: ".") {
            var mutated = token
            mutated[index] = alphabet.first { $0 != token[index] }!
            if (try? TokenFactory.verifier().verify(mutated)) != nil { accepted += 1 }
        }
        #expect(accepted == 0)
    }

    @Test("a signature by another key of the same type is bad_signature")
    func wrongKey() {
        let token = TokenFactory.token(
            header: #"{"kid":"rsa-a","alg":"RS256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.rsaB)
        #expect(TokenFactory.reason(token) == "bad_signature")
    }

    @Test("signatures of the wrong length are bad_signature", arguments: [0, 63, 65, 255, 257])
    func wrongLength(length: Int) {
        let header = Base64URL.encode(
            Array(#"{"kid":"\#(length < 100 ? "ec-a" : "rsa-a")","alg":"\#(length < 100 ? "ES256" : "RS256")"}"#.utf8))
        let token =
            header + "." + Base64URL.encode(Array(TokenFactory.claims().utf8)) + "."
            + Base64URL.encode([UInt8](repeating: 1, count: length))
        #expect(TokenFactory.reason(token) == "bad_signature")
    }

    @Test("a key type that does not fit the header alg is key_alg_mismatch, never tried")
    func keyTypeMismatch() {
        let token = TokenFactory.token(
            header: #"{"kid":"rsa-a","alg":"ES256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.ec)
        #expect(TokenFactory.reason(token) == "key_alg_mismatch")
    }

    @Test("a failed EdDSA verification does not affect the next one on the same thread")
    func edDSAContextReuse() throws {
        let signer = TokenFactory.Signer(kid: "ed", algorithm: .edDSA, key: try EVPPrivateKey.generateEd25519())
        let keys = try JWKSet(json: Array("{\"keys\":[\(signer.jwkJSON)]}".utf8))
        let verifier = Verifier(
            keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], algorithms: [.edDSA],
            clock: { TokenFactory.now })
        let good = TokenFactory.token(payload: TokenFactory.claims(), signer: signer)
        var badBytes = Array(good.utf8)
        let index = badBytes.count - 10  // inside the signature, away from the last (partial) character
        badBytes[index] = badBytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let bad = String(decoding: badBytes, as: UTF8.self)
        for _ in 0..<3 {
            #expect(TokenFactory.reason(bad, verifier: verifier) == "bad_signature")
            #expect(TokenFactory.reason(good, verifier: verifier) == nil)
        }
    }
}
