internal import CCryptoMB
internal import CRSAMontgomery

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
            guard isLoaded, (1...8).contains(keys.count), let kind = RSAMontgomeryKey.digestKind(algorithm),
                let digest = algorithm.digest
            else { return nil }
            var chains: [OpaquePointer?] = []
            var bits = 0
            for key in keys {
                guard let chain = key.rsaChain?.pointer, let size = MultiBufferEngine.lanes(for: chain),
                    bits == 0 || size == bits
                else { return nil }
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
            signatures: UnsafeMutablePointer<UnsafeRawPointer?>, digests: UnsafeMutablePointer<UnsafeRawPointer?>,
            valid: UnsafeMutablePointer<UInt8>
        ) {
            let bits = self.bits
            chains.withUnsafeMutableBufferPointer { chains in
                kinds.withUnsafeMutableBufferPointer { kinds in
                    lengths.withUnsafeMutableBufferPointer { lengths in
                        verify8(
                            keys: chains.baseAddress!, signatures: signatures, kinds: kinds.baseAddress!,
                            digests: digests,
                            digestLengths: lengths.baseAddress!, bits: bits, valid: valid)
                    }
                }
            }
        }
    }
}
