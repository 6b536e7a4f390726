import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The RFC 7515/7517/7520/8037 examples in `../shared/vectors/rfc`.
@Suite("RFC examples", .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
struct RFCExampleTests {
    static let jwsFiles = [
        "rfc7515_A2_RS256.json", "rfc7515_A3_ES256.json", "rfc7515_A4_ES512.json", "rfc7515_A5_none.json",
        "rfc7520_4_1_RS256.json", "rfc7520_4_2_PS384.json", "rfc7520_4_3_ES512.json", "rfc8037_A4_EdDSA.json",
    ]

    @Test("JWS examples verify with their key", arguments: jwsFiles)
    func jws(_ file: String) throws {
        let vector = try SharedVectors.json("rfc/\(file)")
        let jwk = try JSONSerialization.data(withJSONObject: try #require(vector["jwk"]))
        let verifier = Verifier(
            keys: try JWKSet(json: [UInt8](jwk)),
            policy: VerificationPolicy(issuers: nil, audiences: nil, algorithms: Set(SignatureAlgorithm.all)))
        let result = verifier.verifySignatureOnly(Array(try #require(vector["token"] as? String).utf8))
        if vector["expect"] as? String == "valid" {
            let (algorithm, payload) = try result.get()
            #expect(algorithm.name == vector["alg"] as? String)
            #expect(payload == Array(try #require(vector["payload_text"] as? String).utf8))
        } else {
            guard case .failure(let error) = result else {
                Issue.record("accepted an invalid example")
                return
            }
            #expect(error.reason.rawValue == vector["reason"] as? String)
        }
    }

    @Test("RFC 7515 A.3 (ES256) through the fixed-base path, alone and through the batch signature stage")
    func es256FixedBase() throws {
        let vector = try SharedVectors.json("rfc/rfc7515_A3_ES256.json")
        let jwk = try JSONSerialization.data(withJSONObject: try #require(vector["jwk"]))
        let verifier = Verifier(
            keys: try JWKSet(json: [UInt8](jwk)), policy: VerificationPolicy(issuers: nil, audiences: nil))
        let key = try #require(verifier.keys.keys.first?.key)
        #expect(key.buildFixedBaseNow() != nil)
        let token = Array(try #require(vector["token"] as? String).utf8)
        #expect(vector["expect"] as? String == "valid")
        #expect((try? verifier.verifySignatureOnly(token).get())?.0 == .es256)
        // Its payload is a JWT that expired at 1300819380: verified as one just before.
        var batch = TokenBatch()
        batch.append(token)
        let batched = verifier.verify(batch, at: 1_300_819_000)
        #expect((try? batched[0].get())?.payload == Array(try #require(vector["payload_text"] as? String).utf8))
        var tampered = token
        tampered[tampered.count - 2] =
            tampered[tampered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        if case .failure(let error) = verifier.verifySignatureOnly(tampered) {
            #expect(error.reason == .badSignature)
        } else {
            Issue.record("a tampered RFC 7515 A.3 signature verified")
        }
    }

    @Test("the RFC 8037 key has the RFC's thumbprint")
    func edDSAThumbprint() throws {
        let vector = try SharedVectors.json("rfc/rfc8037_A4_EdDSA.json")
        let set = try JWKSet(json: [UInt8](try JSONSerialization.data(withJSONObject: try #require(vector["jwk"]))))
        #expect(set.keys.first?.thumbprint == vector["jwk_thumbprint_sha256"] as? String)
    }

    @Test("RFC 7517 A.1: both keys import, the enc key is unusable, the RSA thumbprint matches RFC 7638")
    func publicKeySet() throws {
        let vector = try SharedVectors.json("rfc/rfc7517_A1_public_jwks.json")
        let set = try JWKSet(json: [UInt8](try JSONSerialization.data(withJSONObject: try #require(vector["jwks"]))))
        #expect(set.keys.count == 2)
        let ec = try #require(set.key(withID: "1"))
        #expect(ec.unusableReason?.contains("use") == true)
        #expect(ec.bits == nil)
        let rsa = try #require(set.key(withID: "2011-04-29"))
        #expect(rsa.unusableReason == nil)
        #expect(rsa.bits == 2048)
        #expect(rsa.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("RFC 7517 A.2: private members are ignored; the public halves match A.1")
    func privateKeySet() throws {
        let publicSet = try JWKSet(
            json: [UInt8](
                try JSONSerialization.data(
                    withJSONObject: try #require(try SharedVectors.json("rfc/rfc7517_A1_public_jwks.json")["jwks"]))))
        let privateSet = try JWKSet(
            json: [UInt8](
                try JSONSerialization.data(
                    withJSONObject: try #require(try SharedVectors.json("rfc/rfc7517_A2_private_jwks.json")["jwks"]))))
        #expect(privateSet.keys.count == 2)
        for key in privateSet.keys where key.unusableReason == nil {
            let twin = try #require(publicSet.keys.first { $0.thumbprint == key.thumbprint })
            #expect(twin.material == key.material)
        }
        #expect(privateSet.keys.contains { $0.unusableReason == nil && $0.keyType == "RSA" })
    }

    @Test("RFC 7517 B: a JWK with x5c imports from n/e")
    func x5cKey() throws {
        let vector = try SharedVectors.json("rfc/rfc7517_B_x5c.json")
        let body = try #require(vector["jwk"] ?? vector["jwks"])
        let set = try JWKSet(json: [UInt8](try JSONSerialization.data(withJSONObject: body)))
        let key = try #require(set.keys.first)
        #expect(key.unusableReason == nil)
        #expect(key.keyType == "RSA")
    }
}
