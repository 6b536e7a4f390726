internal import CCryptoMB
internal import CRSAMontgomery

extension MultiBufferEngine {
    /// What the engine keeps of an RSA key between calls: the key's Montgomery constants, which
    /// crypto_mb's public call (`mbx_rsa_public_ssl_mb8`) otherwise computes for every lane of
    /// every call, about a fifth of its time.
    package enum KeptConstants: Equatable, Sendable {
        /// Nothing yet: computed at the key's first engine call.
        case none
        /// Computed once, checked against the public call, and used in every call since.
        case kept
        /// Refused: the check against the public call failed, so the key's calls use it.
        case refused
    }

    /// Whether RSA keys' constants are kept: crypto_mb 2.3 (the version whose functions behind
    /// its public call were read) on a CPU with AVX-512 IFMA; `false` when nothing is loaded.
    package static var keepsKeyConstants: Bool { isLoaded && jwtv_mb_keeps_rsa_constants() == 1 }

    /// What the engine keeps of `key`; `nil` for a key that is not RSA.
    package static func keptConstants(of key: EVPPublicKey) -> KeptConstants? {
        guard let chain = key.rsaChain?.pointer else { return nil }
        switch jwtv_mb_rsa_key_constants(chain) {
        case 0: return KeptConstants.none
        case 1: return .kept
        default: return .refused
        }
    }

    /// For tests: marks `key`, with nothing kept yet, as if its check had failed. `true` when marked.
    package static func refuseKeptConstants(of key: EVPPublicKey) -> Bool {
        guard let chain = key.rsaChain?.pointer else { return false }
        return jwtv_mb_refuse_rsa_key_constants(chain) == 1
    }
}
