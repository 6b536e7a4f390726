import Dispatch
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// The engine's kept RSA key constants (crypto_mb 2.3's functions behind `mbx_rsa_public_ssl_mb8`,
/// each key's Montgomery constants computed once): for every modulus size the engine takes, a fresh
/// key keeps nothing until its first call, then keeps its constants, and every verdict is
/// `EVP_PKEY_verify`'s, in every lane; threads racing to a fresh key's first call all get theirs;
/// a key whose constants are refused is verified through the public call. Skipped, visibly, where
/// the engine keeps none (no crypto_mb, another version, or a CPU without AVX-512 IFMA).
@Suite("multi-buffer engine: kept key constants")
struct MultiBufferKeptConstantsTests {
    static let keeps: Bool = {
        if !MultiBufferEngine.keepsKeyConstants {
            print("kept key constants: skipped, the engine keeps none (\(MultiBufferEngine.description))")
        }
        return MultiBufferEngine.keepsKeyConstants
    }()

    typealias Lane = MultiBufferEngineTests.Lane

    /// A fresh key pair of `bits` bits, e = 65537.
    static func freshKey(bits: Int) throws -> (signer: EVPPrivateKey, key: EVPPublicKey) {
        let signer = try EVPPrivateKey.generateRSA(bits: bits)
        return (signer, try RSAMontgomeryTests.publicKey(of: signer))
    }

    /// Eight lanes, lane i under `keys[(i + shift) % keys.count]` signing its own message; the lanes
    /// in `bad` carry their signature with one bit flipped. Each lane's expected verdict is
    /// `EVP_PKEY_verify`'s.
    static func lanes(
        _ keys: [(signer: EVPPrivateKey, key: EVPPublicKey)], shift: Int = 0, bad: Set<Int>, tag: String
    ) throws -> (lanes: [Lane], expected: [Bool]) {
        var lanes: [Lane] = []
        for i in 0..<8 {
            let pair = keys[(i + shift) % keys.count]
            let message = Array("\(tag) lane \(i)".utf8)
            var signature = try pair.signer.sign(message, algorithm: .rs256)
            if bad.contains(i) { signature[(i * 37) % signature.count] ^= 0x10 }
            lanes.append((pair.key, signature, MessageDigest.sha256.hash(message), .rs256))
        }
        return (lanes, lanes.map(MultiBufferEngineTests.throughEVP))
    }

    @Test(
        "a fresh key keeps nothing until its first call, then its constants; every verdict is EVP_PKEY_verify's",
        .enabled(if: keeps), arguments: [1024, 2048, 3072, 4096])
    func keptPerSize(bits: Int) throws {
        let pair = try Self.freshKey(bits: bits)
        #expect(MultiBufferEngine.takes(pair.key) == bits)
        #expect(MultiBufferEngine.keptConstants(of: pair.key) == MultiBufferEngine.KeptConstants.none)
        for (call, bad) in [[0, 3, 7], [1, 2, 4, 5, 6], [], Array(0..<8)].enumerated() {
            let made = try Self.lanes([pair], bad: Set(bad), tag: "\(bits) call \(call)")
            #expect(made.expected == (0..<8).map { !bad.contains($0) })
            #expect(MultiBufferEngine.verify(made.lanes) == made.expected, "\(bits) bits, bad lanes \(bad)")
            #expect(MultiBufferEngine.keptConstants(of: pair.key) == .kept)
        }
        // One lane of eight, the others unused.
        let alone = try Self.lanes([pair], bad: [], tag: "\(bits) alone")
        #expect(MultiBufferEngine.verify([alone.lanes[5]]) == [true])
    }

    @Test(
        "8 threads race to three fresh keys' first calls, their lanes mixed: every verdict right, each key keeps one set",
        .enabled(if: keeps))
    func racingFirstCalls() throws {
        let pairs = try (0..<3).map { _ in try Self.freshKey(bits: 2048) }
        var calls: [(lanes: [Lane], expected: [Bool])] = []
        for worker in 0..<8 {
            for round in 0..<6 {
                calls.append(
                    try Self.lanes(
                        pairs, shift: worker + round, bad: [(worker + round) % 8], tag: "w\(worker) r\(round)"))
            }
        }
        #expect(
            pairs.allSatisfy { MultiBufferEngine.keptConstants(of: $0.key) == MultiBufferEngine.KeptConstants.none })
        let wrong = Atomic<Int>(0)
        let prepared = calls
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<6 {
                let call = prepared[worker * 6 + round]
                if MultiBufferEngine.verify(call.lanes) != call.expected { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(pairs.allSatisfy { MultiBufferEngine.keptConstants(of: $0.key) == .kept })
    }

    @Test(
        "a key whose constants are refused is verified through crypto_mb's public call, with the same verdicts",
        .enabled(if: keeps))
    func refusedKeyUsesThePublicCall() throws {
        let refused = try Self.freshKey(bits: 2048)
        let kept = try Self.freshKey(bits: 2048)
        #expect(MultiBufferEngine.refuseKeptConstants(of: refused.key))
        #expect(!MultiBufferEngine.refuseKeptConstants(of: refused.key), "marked twice")
        #expect(MultiBufferEngine.keptConstants(of: refused.key) == .refused)
        // Alone, and sharing a call with a key whose constants are kept.
        for (keys, bad) in [([refused], [2, 6]), ([refused, kept], [0, 5]), ([kept, refused], [3])] {
            let made = try Self.lanes(keys, bad: Set(bad), tag: "refused \(bad)")
            #expect(made.expected == (0..<8).map { !bad.contains($0) })
            #expect(MultiBufferEngine.verify(made.lanes) == made.expected)
        }
        #expect(MultiBufferEngine.keptConstants(of: refused.key) == .refused)
        #expect(MultiBufferEngine.keptConstants(of: kept.key) == .kept)
    }
}
