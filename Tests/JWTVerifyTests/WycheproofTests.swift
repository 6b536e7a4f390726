import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// Project Wycheproof through the signature layer: keys imported through the JWK path, signatures
/// checked exactly as token verification checks them.
@Suite("Wycheproof", .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
struct WycheproofTests {
    /// Each primitive file with the JWS algorithm it exercises.
    static let primitiveFiles: [(String, SignatureAlgorithm)] = [
        ("ecdsa_secp256r1_sha256_p1363_test.json", .es256),
        ("rsa_signature_2048_sha256_test.json", .rs256),
        ("rsa_signature_3072_sha256_test.json", .rs256),
        ("rsa_signature_4096_sha256_test.json", .rs256),
        ("ecdsa_secp384r1_sha384_p1363_test.json", .es384),
        ("ecdsa_secp521r1_sha512_p1363_test.json", .es512),
        ("rsa_signature_2048_sha384_test.json", .rs384),
        ("rsa_signature_3072_sha384_test.json", .rs384),
        ("rsa_signature_4096_sha384_test.json", .rs384),
        ("rsa_signature_2048_sha512_test.json", .rs512),
        ("rsa_signature_3072_sha512_test.json", .rs512),
        ("rsa_signature_4096_sha512_test.json", .rs512),
        ("rsa_pss_2048_sha256_mgf1_32_test.json", .ps256),
        ("rsa_pss_3072_sha256_mgf1_32_test.json", .ps256),
        ("rsa_pss_4096_sha256_mgf1_32_test.json", .ps256),
        ("rsa_pss_2048_sha384_mgf1_48_test.json", .ps384),
        ("rsa_pss_4096_sha512_mgf1_64_test.json", .ps512),
        ("ed25519_test.json", .edDSA),
    ]

    /// The group's key as a JWK document: `publicKeyJwk`/`keyJwk`, or built from the EC
    /// coordinates for the special-value groups that carry none.
    static func jwk(for group: [String: Any], algorithm: SignatureAlgorithm) throws -> JWK {
        var members = (group["publicKeyJwk"] ?? group["keyJwk"]) as? [String: Any]
        if members == nil, let key = group["publicKey"] as? [String: Any], let wx = key["wx"] as? String,
            let wy = key["wy"] as? String, let curve = algorithm.curve
        {
            let size = curve == "P-256" ? 32 : curve == "P-384" ? 48 : 66
            func coordinate(_ hex: String) -> String {
                var bytes = [UInt8](hex: hex)
                while bytes.count > size, bytes.first == 0 { bytes.removeFirst() }
                return Base64URL.encode([UInt8](repeating: 0, count: max(0, size - bytes.count)) + bytes)
            }
            members = ["kty": "EC", "crv": curve, "x": coordinate(wx), "y": coordinate(wy)]
        }
        let data = try JSONSerialization.data(withJSONObject: members ?? [:])
        let set = try JWKSet(json: [UInt8](data))
        return try #require(set.keys.first)
    }

    @Test("primitive vectors", arguments: primitiveFiles.map(\.0))
    func primitive(_ file: String) throws {
        let algorithm = try #require(Self.primitiveFiles.first { $0.0 == file }?.1)
        let document = try SharedVectors.json("wycheproof/\(file)")
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        var counts = (valid: 0, invalid: 0, acceptable: 0)
        var failures: [String] = []
        for group in groups {
            let key = try Self.jwk(for: group, algorithm: algorithm)
            // RS256/RS384/RS512 go through the key's Montgomery chain: every vector must reach it,
            // and OpenSSL's own EVP_PKEY_verify must agree with each of its verdicts.
            let chained = algorithm.family == .rsaPKCS1
            if chained { #expect(key.key?.rsaChain != nil, "\(file): a key without a chain") }
            for test in group["tests"] as? [[String: Any]] ?? [] {
                let id = test["tcId"] as? Int ?? -1
                let result = test["result"] as? String ?? ""
                let verified = key.verifies(
                    signature: [UInt8](hex: test["sig"] as? String ?? ""),
                    message: [UInt8](hex: test["msg"] as? String ?? ""), algorithm: algorithm)
                if chained, let publicKey = key.key {
                    let signature = [UInt8](hex: test["sig"] as? String ?? "")
                    let digest = algorithm.digest!.hash([UInt8](hex: test["msg"] as? String ?? ""))
                    let throughEVP = signature.withUnsafeBytes { s in
                        digest.withUnsafeBytes { publicKey.isValidPKCS1ThroughEVP(s, digest: $0, algorithm: algorithm) }
                    }
                    if throughEVP != verified {
                        failures.append("tcId \(id): chain says \(verified), EVP_PKEY_verify \(throughEVP)")
                    }
                }
                switch result {
                case "valid":
                    counts.valid += 1
                    if !verified { failures.append("tcId \(id) valid but rejected (\(test["comment"] ?? ""))") }
                case "invalid":
                    counts.invalid += 1
                    if verified { failures.append("tcId \(id) invalid but accepted (\(test["comment"] ?? ""))") }
                default:
                    // `acceptable` (PKCS#1 DigestInfo without NULL): rejected, as OpenSSL and the README recommend.
                    counts.acceptable += 1
                    if verified { failures.append("tcId \(id) acceptable but accepted") }
                }
            }
        }
        print(
            "wycheproof \(file) [\(algorithm)]: \(counts.valid) valid + \(counts.invalid) invalid + \(counts.acceptable) acceptable, \(failures.count) wrong"
        )
        #expect(counts.valid + counts.invalid + counts.acceptable == document["numberOfTests"] as? Int)
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// tcIds whose upstream expectation contradicts their content (the vectors README).
    static let knownAnomalies: Set<Int> = [346, 347, 350, 351, 367, 370, 372, 373]

    @Test("compact JWS file")
    func jsonWebSignature() throws {
        let document = try SharedVectors.json("wycheproof/json_web_signature_test.json")
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        var checked = 0
        var failures: [String] = []
        for group in groups {
            // HMAC groups carry only an `oct` key: it imports as unusable, so every token is refused.
            let jwkMembers = (group["public"] ?? group["private"]) as? [String: Any] ?? [:]
            let keys = try JWKSet(json: [UInt8](try JSONSerialization.data(withJSONObject: jwkMembers)))
            let verifier = Verifier(
                keys: keys,
                policy: VerificationPolicy(issuers: nil, audiences: nil, algorithms: Set(SignatureAlgorithm.all)))
            let isHMAC = (jwkMembers["kty"] as? String) == "oct"
            for test in group["tests"] as? [[String: Any]] ?? [] {
                let id = test["tcId"] as? Int ?? -1
                let token = test["jws"] as? String ?? ""
                let accepted = (try? verifier.verifySignatureOnly(Array(token.utf8)).get()) != nil
                let expected = !isHMAC && !Self.knownAnomalies.contains(id) && test["result"] as? String == "valid"
                checked += 1
                if accepted != expected {
                    failures.append("tcId \(id) (\(group["comment"] ?? "")): accepted=\(accepted)")
                }
            }
        }
        print("wycheproof json_web_signature_test.json: \(checked) checked, \(failures.count) wrong")
        #expect(checked == 401)
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }
}
