import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The multi-buffer engine (Intel's crypto_mb, eight RSA public operations per call) against the
/// key's own chain and OpenSSL's `EVP_PKEY_verify`: every Wycheproof RSASSA-PKCS1-v1_5 vector,
/// alone, in lanes of one key and in lanes mixing keys and invalid signatures; s ≥ n refused; and
/// through the verifier's batch stage, each token's verdict its own. Skipped, visibly, where the
/// engine is not loaded (no library, or a CPU without AVX-512 IFMA).
@Suite("multi-buffer engine")
struct MultiBufferEngineTests {
    static let loaded: Bool = {
        if !MultiBufferEngine.isLoaded { print("multi-buffer engine: skipped, \(MultiBufferEngine.description)") }
        return MultiBufferEngine.isLoaded
    }()

    static let pkcs1Files: [(String, SignatureAlgorithm)] = [
        ("rsa_signature_2048_sha256_test.json", .rs256), ("rsa_signature_3072_sha256_test.json", .rs256),
        ("rsa_signature_4096_sha256_test.json", .rs256), ("rsa_signature_2048_sha384_test.json", .rs384),
        ("rsa_signature_3072_sha384_test.json", .rs384), ("rsa_signature_4096_sha384_test.json", .rs384),
        ("rsa_signature_2048_sha512_test.json", .rs512), ("rsa_signature_3072_sha512_test.json", .rs512),
        ("rsa_signature_4096_sha512_test.json", .rs512),
    ]

    typealias Lane = (key: EVPPublicKey, signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm)

    /// Every vector of `file` as a lane, with Wycheproof's verdict (`acceptable` counts as invalid).
    static func lanes(_ file: String, _ algorithm: SignatureAlgorithm) throws -> [(lane: Lane, valid: Bool, id: String)]
    {
        let document = try SharedVectors.json("wycheproof/\(file)")
        var all: [(Lane, Bool, String)] = []
        for group in document["testGroups"] as? [[String: Any]] ?? [] {
            let key = try #require(try WycheproofTests.jwk(for: group, algorithm: algorithm).key)
            for test in group["tests"] as? [[String: Any]] ?? [] {
                let digest = algorithm.digest!.hash([UInt8](hex: test["msg"] as? String ?? ""))
                all.append(
                    (
                        (key, [UInt8](hex: test["sig"] as? String ?? ""), digest, algorithm),
                        test["result"] as? String == "valid", "\(file) tcId \(test["tcId"] ?? "?")"
                    ))
            }
        }
        return all
    }

    static func throughEVP(_ lane: Lane) -> Bool {
        lane.signature.withUnsafeBytes { s in
            lane.digest.withUnsafeBytes { lane.key.isValidPKCS1ThroughEVP(s, digest: $0, algorithm: lane.algorithm) }
        }
    }

    @Test(
        "every Wycheproof RSASSA-PKCS1-v1_5 vector: alone, eight to a call, and mixed with other keys' lanes",
        .enabled(if: SharedVectors.available && loaded))
    func wycheproof() throws {
        var wrong: [String] = []
        var total = 0
        var laned = 0
        var bySize: [Int: [(lane: Lane, valid: Bool, id: String)]] = [:]
        for (file, algorithm) in Self.pkcs1Files {
            let vectors = try Self.lanes(file, algorithm)
            total += vectors.count
            for vector in vectors {
                let evp = Self.throughEVP(vector.lane)
                if evp != vector.valid { wrong.append("\(vector.id): EVP_PKEY_verify says \(evp)") }
                // Alone: one lane of eight (a key the engine does not take is refused, not guessed).
                let alone = MultiBufferEngine.verify([vector.lane])
                if (alone == nil) != (MultiBufferEngine.takes(vector.lane.key) == nil) {
                    wrong.append("\(vector.id): taken and refused disagree")
                }
                if let alone, alone != [vector.valid] { wrong.append("\(vector.id) alone: \(alone[0])") }
            }
            // Eight to a call, in the file's order, among the keys the engine takes (e = 65537).
            let taken = vectors.filter { MultiBufferEngine.takes($0.lane.key) != nil }
            laned += taken.count
            for start in stride(from: 0, to: taken.count, by: 8) {
                let chunk = Array(taken[start..<min(start + 8, taken.count)])
                guard Set(chunk.map { $0.lane.key.bits }).count == 1 else { continue }
                guard let verdicts = MultiBufferEngine.verify(chunk.map(\.lane)) else {
                    wrong.append("\(file): lanes refused")
                    continue
                }
                for (vector, verdict) in zip(chunk, verdicts) where verdict != vector.valid {
                    wrong.append("\(vector.id) in lanes: \(verdict)")
                }
            }
            for vector in taken { bySize[vector.lane.key.bits, default: []].append(vector) }
        }
        // Mixed: each call takes lanes from different files and keys of one size, shuffled.
        var random = SplitMix(state: 33)
        for (_, vectors) in bySize {
            var shuffled = vectors
            for i in shuffled.indices.reversed() where i > 0 { shuffled.swapAt(i, Int(random.next() % UInt64(i + 1))) }
            for start in stride(from: 0, to: shuffled.count, by: 8) {
                let chunk = Array(shuffled[start..<min(start + 8, shuffled.count)])
                guard let verdicts = MultiBufferEngine.verify(chunk.map(\.lane)) else { continue }
                for (vector, verdict) in zip(chunk, verdicts) where verdict != vector.valid {
                    wrong.append("\(vector.id) mixed: \(verdict)")
                }
            }
        }
        print(
            "multi-buffer engine: \(total) Wycheproof RSASSA-PKCS1-v1_5 vectors (\(laned) under keys it takes, the rest refused alone), \(wrong.count) wrong"
        )
        #expect(total == 2_330)
        #expect(laned > 2_000)
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    /// `a + b` over big-endian octets of one length; `nil` when the sum needs one more octet.
    static func sum(_ a: [UInt8], _ b: [UInt8]) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: a.count)
        var carry = 0
        for i in a.indices.reversed() {
            let value = Int(a[i]) + Int(b[i]) + carry
            result[i] = UInt8(value & 0xFF)
            carry = value >> 8
        }
        return carry == 0 ? result : nil
    }

    @Test(
        "s = n, s = n + 1 and s + n are refused although s + n gives the same s^e mod n; a bad lane changes no other",
        .enabled(if: loaded))
    func signatureBelowModulus() throws {
        let signer = TokenFactory.rsa
        let key = try #require(TokenFactory.keys.keys.first { $0.keyID == signer.kid }?.key)
        let jwk = try #require(try JSONSerialization.jsonObject(with: Data(signer.jwkJSON.utf8)) as? [String: Any])
        let modulusText = try #require(jwk["n"] as? String)
        let n = try #require(Base64URL.decode(modulusText.utf8))
        let message = Array("header.payload".utf8)
        let digest = MessageDigest.sha256.hash(message)
        let signature = try signer.key.sign(message, algorithm: .rs256)
        var nPlusOne = n
        nPlusOne[nPlusOne.count - 1] &+= 1  // n is odd: no carry
        var lanes: [Lane] = [
            (key, signature, digest, .rs256), (key, n, digest, .rs256), (key, nPlusOne, digest, .rs256),
        ]
        var expected = [true, false, false]
        if let shifted = Self.sum(signature, n) {
            lanes.append((key, shifted, digest, .rs256))
            expected.append(false)
        }
        lanes.append((key, signature, digest, .rs256))
        expected.append(true)
        #expect(MultiBufferEngine.verify(lanes) == expected)
        // One bad signature among 1,000 fails alone, in any lane.
        var verdicts: [Bool] = []
        for start in stride(from: 0, to: 1000, by: 8) {
            let chunk: [Lane] = (start..<min(start + 8, 1000)).map {
                $0 == 437 ? (key, nPlusOne, digest, .rs256) : (key, signature, digest, .rs256)
            }
            verdicts += try #require(MultiBufferEngine.verify(chunk))
        }
        #expect(verdicts.indices.filter { !verdicts[$0] } == [437])
    }

    @Test(
        "the batch stage: RS256 tokens of two keys through the engine, mixed with ES256 and forged ones, each gets its single-token verdict",
        .enabled(if: loaded))
    func batchStage() throws {
        let verifier = TokenFactory.verifier()
        var tokens: [String] = []
        for n in 0..<100 {
            let signer = n % 3 == 0 ? TokenFactory.rsaB : n % 7 == 0 ? TokenFactory.ec : TokenFactory.rsa
            var token = TokenFactory.token(payload: TokenFactory.claims(extra: #""n":\#(n)"#), signer: signer)
            if n % 11 == 5 { token = BatchVerificationTests.forged(token) }
            tokens.append(token)
        }
        var batch = TokenBatch()
        for token in tokens { batch.append(token) }
        let batched = verifier.verify(batch, at: TokenFactory.now).map(BatchVerificationTests.describe)
        let single = tokens.map { token in
            BatchVerificationTests.describe(
                Result { () throws(VerificationError) in try verifier.verify(token, at: TokenFactory.now) })
        }
        #expect(batched == single)
        #expect(batched.filter { $0.hasPrefix("bad_signature") }.count == tokens.indices.filter { $0 % 11 == 5 }.count)
    }
}
