internal import CCryptoMB
internal import CRSAMontgomery
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Intel's crypto_mb, the signature stage's multi-buffer engine: eight RSA public operations per
/// call in AVX-512 IFMA lanes, when this process finds the library and the CPU has what it needs.
///
/// Found once per process, in this order: `JWTVERIFY_CRYPTO_MB` (a path to `libcrypto_mb.so.13`
/// or to the folder holding it and its runtime libraries; `off` disables it), ``defaultFolder``
/// (where `make deps` installs it), then the system's library path. Without it every signature
/// is checked as before, one at a time.
package enum MultiBufferEngine {
    /// Where `make deps` installs the pinned crypto_mb and its runtime libraries.
    package static let defaultFolder = "/usr/local/lib/jwtverify/crypto-mb"

    private static let state: (loaded: Bool, message: String) = {
        let setting = getenv("JWTVERIFY_CRYPTO_MB").map { String(cString: $0) }
        var message = [CChar](repeating: 0, count: Int(JWTV_MB_MESSAGE_MAX))
        let loaded = jwtv_mb_load(setting, defaultFolder, &message) == 1
        return (loaded, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }()

    /// Whether the engine is loaded and this CPU can run it.
    package static var isLoaded: Bool { state.loaded }

    /// The engine's name for reports: `crypto_mb` or `openssl`.
    package static var name: String { state.loaded ? "crypto_mb" : "openssl" }

    /// What the search found: the library and its version, or why none is used.
    package static var description: String { state.message }

    /// The fewest RS256/RS384/RS512 signatures of one modulus size worth a call: below this the
    /// key's own chain (about 11 µs each) is cheaper than eight lanes (about 28 µs per call).
    package static let minimumLanes = 3

    /// The modulus size, when the engine takes this RSA chain key (e = 65537; 1024–4096 bits).
    static func lanes(for chain: OpaquePointer) -> Int? {
        guard jwtv_mb_takes_rsa_key(chain) == 1 else { return nil }
        return Int(jwtv_rsa_key_bits(chain))
    }

    /// The digest kind of the chain and the engine for an RS* algorithm.
    static func digestKind(_ algorithm: SignatureAlgorithm) -> jwtv_rsa_digest? {
        switch algorithm {
        case .rs256: JWTV_RSA_SHA256
        case .rs384: JWTV_RSA_SHA384
        case .rs512: JWTV_RSA_SHA512
        default: nil
        }
    }

    /// Up to eight verifications, lane by lane (see `jwtv_mb_rsa_verify8`): `keys[i]` nil for an
    /// unused lane; every key of `bits` bits.
    static func verify8(
        keys: UnsafeMutablePointer<OpaquePointer?>, signatures: UnsafeMutablePointer<UnsafeRawPointer?>, kinds: UnsafeMutablePointer<jwtv_rsa_digest>,
        digests: UnsafeMutablePointer<UnsafeRawPointer?>, digestLengths: UnsafeMutablePointer<Int>, bits: Int, valid: UnsafeMutablePointer<UInt8>
    ) {
        jwtv_mb_rsa_verify8(keys, signatures, kinds, digests, digestLengths, Int32(bits), valid)
    }
}

extension MultiBufferEngine {
    /// The modulus size, when the engine is loaded and takes `key` (RSA, e = 65537, 1024–4096 bits).
    package static func takes(_ key: EVPPublicKey) -> Int? {
        guard isLoaded, let chain = key.rsaChain else { return nil }
        return lanes(for: chain.pointer)
    }

    /// Up to eight RS256/RS384/RS512 verifications of one modulus size in one engine call, over
    /// digests already made: for tests and the differential fuzz target, which hold the engine
    /// against `EVP_PKEY_verify`. `nil` when the engine is not loaded, or does not take a key.
    package static func verify(_ lanes: [(key: EVPPublicKey, signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm)]) -> [Bool]? {
        guard isLoaded, !lanes.isEmpty, lanes.count <= 8 else { return nil }
        var chains: [OpaquePointer?] = []
        var kinds: [jwtv_rsa_digest] = []
        var bits = 0
        for lane in lanes {
            guard let chain = lane.key.rsaChain?.pointer, let size = Self.lanes(for: chain), let kind = digestKind(lane.algorithm), bits == 0 || size == bits
            else { return nil }
            bits = size
            chains.append(chain)
            kinds.append(kind)
        }
        while chains.count < 8 {
            chains.append(nil)
            kinds.append(JWTV_RSA_SHA256)
        }
        var lengths = lanes.map(\.digest.count) + [Int](repeating: 0, count: 8 - lanes.count)
        var valid = [UInt8](repeating: 0, count: 8)
        // The signatures and digests copied into one buffer whose addresses hold for the call.
        let width = 512 + 64
        var storage = [UInt8](repeating: 0, count: 8 * width)
        for (i, lane) in lanes.enumerated() {
            storage.replaceSubrange((i * width)..<(i * width + min(lane.signature.count, 512)), with: lane.signature.prefix(512))
            storage.replaceSubrange((i * width + 512)..<(i * width + 512 + min(lane.digest.count, 64)), with: lane.digest.prefix(64))
        }
        for (i, lane) in lanes.enumerated() where lane.signature.count != bits / 8 { chains[i] = nil }  // a wrong size never verifies
        storage.withUnsafeBytes { all in
            var pointers: [UnsafeRawPointer?] = (0..<16).map { slot in
                slot < 8 ? (slot < lanes.count ? all.baseAddress! + slot * width : nil) : (slot - 8 < lanes.count ? all.baseAddress! + (slot - 8) * width + 512 : nil)
            }
            pointers.withUnsafeMutableBufferPointer { pointers in
                verify8(
                    keys: &chains, signatures: pointers.baseAddress!, kinds: &kinds, digests: pointers.baseAddress! + 8, digestLengths: &lengths,
                    bits: bits, valid: &valid)
            }
        }
        return valid.prefix(lanes.count).map { $0 == 1 }
    }
}

extension MultiBufferEngine {
    /// Up to eight RS256/RS384/RS512 keys of one modulus size, prepared once for repeated engine
    /// calls over digests the caller makes: the benchmark's `--raw-check multibuffer` limit (the
    /// SHA-2 digest, the eight-lane public operation and the encoding compare, nothing else).
    package struct Lanes: @unchecked Sendable {
        // Safety: the chains are immutable C keys owned by `keys`, which this value keeps alive.
        private let keys: [EVPPublicKey]
        private var chains: [OpaquePointer?]
        private var kinds: [jwtv_rsa_digest]
        private var lengths: [Int]
        /// The lanes' modulus size in bits.
        package let bits: Int
        /// The number of lanes in use.
        package var count: Int { keys.count }

        /// Lanes for `keys` (1…8, one modulus size, each taken by the engine) verifying `algorithm`.
        package init?(keys: [EVPPublicKey], algorithm: SignatureAlgorithm) {
            guard isLoaded, (1...8).contains(keys.count), let kind = digestKind(algorithm), let digest = algorithm.digest else { return nil }
            var chains: [OpaquePointer?] = []
            var bits = 0
            for key in keys {
                guard let chain = key.rsaChain?.pointer, let size = MultiBufferEngine.lanes(for: chain), bits == 0 || size == bits else { return nil }
                bits = size
                chains.append(chain)
            }
            self.keys = keys
            self.chains = chains + [OpaquePointer?](repeating: nil, count: 8 - chains.count)
            self.kinds = [jwtv_rsa_digest](repeating: kind, count: 8)
            self.lengths = [Int](repeating: digest.size, count: keys.count) + [Int](repeating: 0, count: 8 - keys.count)
            self.bits = bits
        }

        /// One engine call: lane i checks `signatures[i]` against `digests[i]` (8 pointers each,
        /// `nil` past ``count``); `valid[i]` is 1 or 0.
        package mutating func verify(
            signatures: UnsafeMutablePointer<UnsafeRawPointer?>, digests: UnsafeMutablePointer<UnsafeRawPointer?>, valid: UnsafeMutablePointer<UInt8>
        ) {
            let bits = self.bits
            chains.withUnsafeMutableBufferPointer { chains in
                kinds.withUnsafeMutableBufferPointer { kinds in
                    lengths.withUnsafeMutableBufferPointer { lengths in
                        verify8(
                            keys: chains.baseAddress!, signatures: signatures, kinds: kinds.baseAddress!, digests: digests,
                            digestLengths: lengths.baseAddress!, bits: bits, valid: valid)
                    }
                }
            }
        }
    }
}
