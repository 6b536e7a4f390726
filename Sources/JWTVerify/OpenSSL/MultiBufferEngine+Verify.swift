internal import CCryptoMB
internal import CRSAMontgomery

extension MultiBufferEngine {
    /// The modulus size, when the engine is loaded and takes `key` (RSA, e = 65537, 1024–4096 bits).
    package static func takes(_ key: EVPPublicKey) -> Int? {
        guard isLoaded, let chain = key.rsaChain else { return nil }
        return lanes(for: chain.pointer)
    }

    /// Up to eight RS256/RS384/RS512 verifications of one modulus size in one engine call, over
    /// digests already made: for tests and the differential fuzz target, which hold the engine
    /// against `EVP_PKEY_verify`. `nil` when the engine is not loaded, or does not take a key.
    package static func verify(
        _ lanes: [(key: EVPPublicKey, signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm)]
    ) -> [Bool]? {
        guard isLoaded, !lanes.isEmpty, lanes.count <= 8 else { return nil }
        var chains: [OpaquePointer?] = []
        var kinds: [jwtv_rsa_digest] = []
        var bits = 0
        for lane in lanes {
            guard let chain = lane.key.rsaChain?.pointer, let size = Self.lanes(for: chain),
                let kind = RSAMontgomeryKey.digestKind(lane.algorithm), bits == 0 || size == bits
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
            storage.replaceSubrange(
                (i * width)..<(i * width + min(lane.signature.count, 512)), with: lane.signature.prefix(512))
            storage.replaceSubrange(
                (i * width + 512)..<(i * width + 512 + min(lane.digest.count, 64)), with: lane.digest.prefix(64))
        }
        // a wrong size never verifies
        for (i, lane) in lanes.enumerated() where lane.signature.count != bits / 8 { chains[i] = nil }
        storage.withUnsafeBytes { all in
            var pointers: [UnsafeRawPointer?] = (0..<16).map { slot in
                slot < 8
                    ? (slot < lanes.count ? all.baseAddress! + slot * width : nil)
                    : (slot - 8 < lanes.count ? all.baseAddress! + (slot - 8) * width + 512 : nil)
            }
            pointers.withUnsafeMutableBufferPointer { pointers in
                verify8(
                    keys: &chains, signatures: pointers.baseAddress!, kinds: &kinds, digests: pointers.baseAddress! + 8,
                    digestLengths: &lengths,
                    bits: bits, valid: &valid)
            }
        }
        return valid.prefix(lanes.count).map { $0 == 1 }
    }
}
