import Foundation
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

@Suite("key sets")
struct KeySetTests {
    private func set(_ json: String) throws -> JWKSet { try JWKSet(json: Array(json.utf8)) }

    @Test(
        "documents that are not key sets are errors",
        arguments: [
            "", "[]", "\"keys\"", "{}", #"{"keys":{}}"#, #"{"keys":[1]}"#, "{\"keys\":[]} x", #"{"keys":[],"keys":[]}"#,
        ])
    func notAKeySet(document: String) {
        #expect(throws: JWKSetError.self) { try set(document) }
    }

    @Test("an empty set and a single JWK are accepted")
    func shapes() throws {
        #expect(try set(#"{"keys":[]}"#).keys.isEmpty)
        let single = try set(TokenFactory.ec.jwkJSON)
        #expect(single.keys.count == 1)
        #expect(single.keys[0].unusableReason == nil)
        #expect(single.keys[0].curve == "P-256")
        #expect(single.keys[0].bits == 256)
    }

    @Test("usable keys import with their size and thumbprint")
    func usable() {
        let rsa = TokenFactory.keys.key(withID: "rsa-a")
        #expect(rsa?.unusableReason == nil)
        #expect(rsa?.bits == 2048)
        #expect(rsa?.thumbprint?.utf8.count == 43)
        #expect(TokenFactory.keys.key(withID: "RSA-A") == nil)
    }

    @Test(
        "unusable entries are kept with a reason and reject tokens that name them",
        arguments: [
            (#""use":"enc""#, "use"),
            (#""key_ops":["encrypt"]"#, "key_ops"),
            (#""key_ops":"verify""#, "key_ops"),
        ])
    func unusable(member: String, mentions: String) throws {
        let jwk = TokenFactory.rsa.jwkJSON.replacingOccurrences(of: #""use":"sig""#, with: member)
        let keys = try set("{\"keys\":[\(jwk)]}")
        let entry = try #require(keys.keys.first)
        #expect(entry.unusableReason?.contains(mentions) == true, "\(entry.unusableReason ?? "usable")")
        let token = TokenFactory.token(payload: TokenFactory.claims())
        let verifier = Verifier(
            keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        #expect(TokenFactory.reason(token, verifier: verifier) == "key_alg_mismatch")
    }

    @Test("a symmetric key never verifies anything")
    func symmetricKey() throws {
        let keys = try set(#"{"keys":[{"kty":"oct","kid":"rsa-a","k":"c2VjcmV0"}]}"#)
        #expect(keys.keys[0].unusableReason?.contains("oct") == true)
        let verifier = Verifier(
            keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        #expect(
            TokenFactory.reason(TokenFactory.token(payload: TokenFactory.claims()), verifier: verifier)
                == "key_alg_mismatch")
    }

    @Test("RSA keys below 2048 bits are unusable")
    func smallRSA() throws {
        let small = TokenFactory.Signer(kid: "small", algorithm: .rs256, key: try EVPPrivateKey.generateRSA(bits: 1024))
        let keys = try set("{\"keys\":[\(small.jwkJSON)]}")
        #expect(keys.keys[0].unusableReason?.contains("1024 bits") == true)
        let token = TokenFactory.token(payload: TokenFactory.claims(), signer: small)
        let verifier = Verifier(
            keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        #expect(TokenFactory.reason(token, verifier: verifier) == "key_alg_mismatch")
    }

    @Test("an off-curve point, a short coordinate and an unknown curve are unusable")
    func badECKeys() throws {
        let zero = Base64URL.encode([UInt8](repeating: 0, count: 32))
        let one = Base64URL.encode([UInt8](repeating: 0, count: 31) + [1])
        let offCurve = try set(#"{"kty":"EC","crv":"P-256","x":"\#(one)","y":"\#(one)"}"#)
        #expect(offCurve.keys[0].unusableReason != nil)
        let short = try set(#"{"kty":"EC","crv":"P-256","x":"\#(Base64URL.encode([1, 2]))","y":"\#(zero)"}"#)
        #expect(short.keys[0].unusableReason?.contains("octets") == true)
        let curve = try set(#"{"kty":"EC","crv":"secp256k1","x":"\#(zero)","y":"\#(zero)"}"#)
        #expect(curve.keys[0].unusableReason?.contains("secp256k1") == true)
    }

    @Test("private members are never used: a JWK with d imports to the same public key")
    func privateMembersIgnored() throws {
        let withPrivate = TokenFactory.rsa.jwkJSON.dropLast() + #","d":"AAAA","p":"!!","q":7}"#
        let keys = try set(String(withPrivate))
        #expect(keys.keys[0].unusableReason == nil)
        #expect(keys.keys[0].thumbprint == TokenFactory.keys.key(withID: "rsa-a")?.thumbprint)
    }

    @Test("a repeated kid with the same key is merged; with another key it becomes unusable")
    func duplicateKids() throws {
        let same = try set("{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsa.jwkJSON)]}")
        #expect(same.keys.count == 1)
        #expect(same.keys[0].unusableReason == nil)
        let other = TokenFactory.rsaB.jwkJSON.replacingOccurrences(of: "\"rsa-b\"", with: "\"rsa-a\"")
        let conflict = try set("{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(other)]}")
        #expect(conflict.keys.count == 1)
        #expect(conflict.keys[0].unusableReason?.contains("more than one") == true)
        let merged = TokenFactory.keys.merging(try set("{\"keys\":[\(other)]}"))
        let verifier = Verifier(
            keys: merged, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        #expect(
            TokenFactory.reason(TokenFactory.token(payload: TokenFactory.claims()), verifier: verifier)
                == "key_alg_mismatch")
    }

    @Test("a key set file that does not exist is reported as missing")
    func missingFile() {
        do {
            _ = try JWKSet(contentsOfFile: "/nonexistent/keys.json")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.isMissingFile)
        }
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

@Suite("x509 certificate maps")
struct CertificateMapTests {
    @Test("Google's kid-to-certificate format gives the same keys as the JWKS, and tokens verify with it")
    func certificateMap() throws {
        let x509 = try JWKSet(
            contentsOfFile: SharedVectors.projectVectors.appendingPathComponent("google-x509-keys.json").path)
        let jwks = try JWKSet(contentsOfFile: SharedVectors.projectVectors.appendingPathComponent("jwks.json").path)
        #expect(x509.keys.count == 2)
        for key in x509.keys {
            #expect(key.unusableReason == nil)
            #expect(key.keyType == "RSA")
            #expect(key.thumbprint == jwks.key(withID: key.keyID ?? "")?.thumbprint)
        }
        let verifier = Verifier(
            keys: x509, issuer: "https://appleid.apple.com", audiences: ["com.example.app"], clock: { 1_767_225_600 })
        let sample = SampleVectorTests.samples.first { $0.id == "valid-rs256-key2" }
        let token = try #require(sample)
        #expect(throws: Never.self) { try verifier.verify(token.token, nonce: token.nonce) }
    }

    @Test("a map with a broken certificate keeps that kid unusable; other objects are not key sets")
    func brokenCertificate() throws {
        let set = try JWKSet(
            json: Array(#"{"abc":"-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"}"#.utf8))
        #expect(set.keys.first?.keyID == "abc")
        #expect(set.keys.first?.unusableReason != nil)
        #expect(throws: JWKSetError.self) { try JWKSet(json: Array(#"{"abc":"hello"}"#.utf8)) }
    }
}
