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

    deinit { jwtv_rsa_key_free(pointer) }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 signature of the message whose `digest`
    /// (SHA-256, SHA-384 or SHA-512, as `algorithm` says) is given, using this thread's scratch.
    package func isValidSignature(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm
    ) -> Bool {
        Self.isValidSignature(signature, digest: digest, algorithm: algorithm, key: pointer, contexts: .current)
    }

    /// ``isValidSignature(_:digest:algorithm:)`` with a chain's C key (`jwtv_rsa_key *`, kept
    /// alive by its owner for the call) and the calling thread's contexts in hand.
    static func isValidSignature(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm,
        key: OpaquePointer,
        contexts: ThreadContexts
    ) -> Bool {
        let kind: jwtv_rsa_digest
        switch algorithm.backing {
        case .rs256: kind = JWTV_RSA_SHA256
        case .rs384: kind = JWTV_RSA_SHA384
        case .rs512: kind = JWTV_RSA_SHA512
        default: return false
        }
        return jwtv_rsa_verify_pkcs1(
            key, contexts.rsaScratch, kind, digest.baseAddress, digest.count, signature.baseAddress, signature.count)
            == 1
    }

    /// ``isValidSignature(_:digest:algorithm:)`` for callers outside the core (tests, the fuzzer).
    package func verifies(_ signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        signature.withUnsafeBytes { s in
            digest.withUnsafeBytes { isValidSignature(s, digest: $0, algorithm: algorithm) }
        }
    }
}
