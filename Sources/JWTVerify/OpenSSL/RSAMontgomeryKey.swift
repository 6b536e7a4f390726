internal import CRSAMontgomery

/// One RSA public key prepared for RS256, RS384 and RS512 by a chain of Montgomery products
/// (`jwtv_rsa_key`): s^e mod n without converting s into Montgomery form and back, and without
/// the allocations `EVP_PKEY_verify` makes per call; the result must equal the EMSA-PKCS1-v1_5
/// encoding octet for octet (see `rsa_montgomery.h`).
///
/// Immutable once built, so it verifies on many threads at once. Freed exactly once, in `deinit`.
package final class RSAMontgomeryKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Prepares the key from big-endian modulus and exponent octets (one modular exponentiation,
    /// tens of microseconds); `nil` for an exponent over 64 bits, or anything OpenSSL's own
    /// verification should decide instead.
    package init?(modulus: [UInt8], exponent: [UInt8]) {
        let built = modulus.withUnsafeBytes { n in
            exponent.withUnsafeBytes { e in jwtv_rsa_key_new(n.baseAddress, n.count, e.baseAddress, e.count) }
        }
        guard let built else { return nil }
        pointer = built
    }

    /// The modulus size in bits when the multi-buffer engine would take this key (e = 65537,
    /// 1024–4096 bits, and no search has found the engine absent): its signatures can go eight to
    /// a call. Asked by the batch stage only, whose plan runs the lanes once the engine is ready
    /// (``SignaturePlan/seal()``).
    var laneBits: Int? { MultiBufferEngine.plannedLanes(for: pointer) }

    deinit { jwtv_rsa_key_free(pointer) }

    /// The chain's digest kind for an RS* algorithm (the multi-buffer engine's too).
    static func digestKind(_ algorithm: SignatureAlgorithm) -> jwtv_rsa_digest? {
        switch algorithm.backing {
        case .rs256: JWTV_RSA_SHA256
        case .rs384: JWTV_RSA_SHA384
        case .rs512: JWTV_RSA_SHA512
        default: nil
        }
    }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 signature of the message whose `digest`
    /// (SHA-256, SHA-384 or SHA-512, as `algorithm` says) is given, using this thread's scratch.
    package func isValidSignature(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm
    ) -> Bool {
        isValidSignature(signature, digest: digest, algorithm: algorithm, contexts: .current)
    }

    /// ``isValidSignature(_:digest:algorithm:)`` with the calling thread's contexts in hand.
    func isValidSignature(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm,
        contexts: ThreadContexts
    ) -> Bool {
        guard let kind = Self.digestKind(algorithm) else { return false }
        return jwtv_rsa_verify_pkcs1(
            pointer, contexts.rsaScratch, kind, digest.baseAddress, digest.count, signature.baseAddress,
            signature.count) == 1
    }

    /// ``isValidSignature(_:digest:algorithm:)`` for callers outside the core (tests, the fuzzer).
    package func verifies(_ signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        signature.withUnsafeBytes { s in
            digest.withUnsafeBytes { isValidSignature(s, digest: $0, algorithm: algorithm) }
        }
    }
}
