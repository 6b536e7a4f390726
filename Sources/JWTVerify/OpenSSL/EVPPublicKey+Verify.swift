internal import COpenSSL

extension EVPPublicKey {
    /// Whether `signature` (in JWS form) is a valid `algorithm` signature of `signingInput`.
    ///
    /// Sizes are checked first: RSA signatures must be exactly the modulus length, ECDSA signatures
    /// exactly R‖S of the curve's scalar size, EdDSA exactly 64 octets. ECDSA R‖S is converted to
    /// minimal DER through `ECDSA_SIG`; OpenSSL itself rejects R or S outside 1…n−1. ES256 with a
    /// key that has earned its fixed-base table goes through ``FixedBaseP256Key`` instead, and
    /// RS256/RS384/RS512 with a key that has a chain through ``RSAMontgomeryKey``. Only OpenSSL's
    /// `1` (or the fast path's own valid) counts as valid; any failure leaves the thread's error
    /// queue empty.
    func isValidSignature(
        _ signature: UnsafeRawBufferPointer,
        over signingInput: UnsafeRawBufferPointer,
        algorithm: SignatureAlgorithm,
        fingerprint: FingerprintRequest? = nil
    ) -> Bool {
        let contexts = ThreadContexts.current
        switch algorithm.family {
        case .edDSA:
            return signature.count == 64 && contexts.verifyOneShot(signature, over: signingInput, key: self)
        case .rsaPKCS1, .rsaPSS:
            guard signature.count == (bits + 7) / 8 else { return false }
            if algorithm.family == .rsaPKCS1, let chain = rsaChainKey {
                return verifyChain(chain, signature, over: signingInput, algorithm: algorithm, contexts: contexts, fingerprint: fingerprint)
            }
            return verifyPrehashed(signature, over: signingInput, algorithm: algorithm, contexts: contexts, fingerprint: fingerprint)
        case .ecdsa(_, let scalarSize):
            guard signature.count == 2 * scalarSize else { return false }
            if algorithm == .es256, let table = fixedBase {
                return verifyFixedBase(table, signature, over: signingInput, contexts: contexts, fingerprint: fingerprint)
            }
            return withUnsafeTemporaryAllocation(byteCount: 2 * scalarSize + 16, alignment: 1) { der in
                let derLength = copenssl_ecdsa_raw_to_der(
                    signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                    der.baseAddress?.assumingMemoryBound(to: UInt8.self), der.count)
                guard derLength > 0 else {
                    OpenSSLFailure.clear()
                    return false
                }
                return verifyPrehashed(
                    UnsafeRawBufferPointer(rebasing: der[..<derLength]), over: signingInput, algorithm: algorithm,
                    contexts: contexts, fingerprint: fingerprint)
            }
        }
    }

    /// ES256 through this key's fixed-base table: the digest, then a verdict presolved in this
    /// thread's batch for exactly this key, digest and signature, or the table's own check.
    private func verifyFixedBase(
        _ table: FixedBaseP256Key, _ signature: UnsafeRawBufferPointer, over signingInput: UnsafeRawBufferPointer,
        contexts: ThreadContexts, fingerprint: FingerprintRequest?
    ) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { hash in
            _ = contexts.hash(signingInput, with: MessageDigest.sha256, into: hash, fingerprint: fingerprint)
            let digest = UnsafeRawBufferPointer(hash)
            if !contexts.presolved.isEmpty, let verdict = contexts.presolved.verdict(keyID: id, digest: digest, signature: signature) {
                return verdict
            }
            return table.isValidSignature(signature, digest: digest)
        }
    }

    /// RS256, RS384 or RS512 through this key's Montgomery chain: the digest, then the chain's check.
    private func verifyChain(
        _ chain: OpaquePointer, _ signature: UnsafeRawBufferPointer, over signingInput: UnsafeRawBufferPointer,
        algorithm: SignatureAlgorithm, contexts: ThreadContexts, fingerprint: FingerprintRequest?
    ) -> Bool {
        guard let digest = algorithm.unretainedDigest else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { hash in
            let length = digest._withUnsafeGuaranteedRef { contexts.hash(signingInput, with: $0, into: hash, fingerprint: fingerprint) }
            return RSAMontgomeryKey.isValidSignature(
                signature, digest: UnsafeRawBufferPointer(rebasing: hash[..<length]), algorithm: algorithm, key: chain, contexts: contexts)
        }
    }

    private func verifyPrehashed(
        _ signature: UnsafeRawBufferPointer,
        over signingInput: UnsafeRawBufferPointer,
        algorithm: SignatureAlgorithm,
        contexts: ThreadContexts,
        fingerprint: FingerprintRequest?
    ) -> Bool {
        guard let digest = algorithm.unretainedDigest, let context = contexts.verifyContext(for: self, algorithm: algorithm) else {
            return false
        }
        return digest._withUnsafeGuaranteedRef { digest in
            contexts.verify(prehashed: context, signature: signature, over: signingInput, digest: digest, fingerprint: fingerprint)
        }
    }

    /// An ES256 signature (r‖s) of a SHA-256 `digest` checked by OpenSSL's own `EVP_PKEY_verify`,
    /// never the fixed-base path: the reference that path is tested and fuzzed against.
    package func isValidES256ThroughEVP(_ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64, digest.count == 32,
            let context = ThreadContexts.current.verifyContext(for: self, algorithm: .es256)
        else { return false }
        return withUnsafeTemporaryAllocation(byteCount: 80, alignment: 1) { der in
            let derLength = copenssl_ecdsa_raw_to_der(
                signature.baseAddress?.assumingMemoryBound(to: UInt8.self), 64, der.baseAddress?.assumingMemoryBound(to: UInt8.self), der.count)
            guard derLength > 0 else {
                OpenSSLFailure.clear()
                return false
            }
            let rc = EVP_PKEY_verify(
                context, der.baseAddress?.assumingMemoryBound(to: UInt8.self), derLength, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), 32)
            if rc != 1 { OpenSSLFailure.clear() }
            return rc == 1
        }
    }

    /// An RS256, RS384 or RS512 signature of `digest` checked by OpenSSL's own `EVP_PKEY_verify`,
    /// never the Montgomery chain: the reference that path is tested and fuzzed against.
    package func isValidPKCS1ThroughEVP(_ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm) -> Bool {
        guard algorithm.family == .rsaPKCS1, digest.count == algorithm.digest?.size,
            let context = ThreadContexts.current.verifyContext(for: self, algorithm: algorithm)
        else { return false }
        let rc = EVP_PKEY_verify(
            context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
            digest.baseAddress?.assumingMemoryBound(to: UInt8.self), digest.count)
        if rc != 1 { OpenSSLFailure.clear() }
        return rc == 1
    }

    /// An ECDSA JWS signature (R‖S) as minimal DER, or `nil` when it is not two equal halves.
    package static func ecdsaDER(fromJWS signature: [UInt8]) -> [UInt8]? {
        var der = [UInt8](repeating: 0, count: signature.count + 16)
        let length = copenssl_ecdsa_raw_to_der(signature, signature.count, &der, der.count)
        guard length > 0 else {
            OpenSSLFailure.clear()
            return nil
        }
        return Array(der[..<length])
    }
}
