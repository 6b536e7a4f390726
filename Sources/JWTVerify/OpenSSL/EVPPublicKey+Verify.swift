internal import COpenSSL

extension EVPPublicKey {
    /// The engine that checks an `algorithm` signature of `signatureLength` octets with this key:
    /// the one choice for the single-token path and the batch stage alike.
    ///
    /// Sizes first: RSA signatures must be exactly the modulus length, ECDSA signatures exactly
    /// R‖S of the curve's scalar size, EdDSA's 64 octets; any other is ``SignatureEngine/refused``.
    /// ES256 with a key that has earned its fixed-base table goes through ``FixedBaseP256Key``,
    /// RS256/RS384/RS512 with a key that has its chain through ``RSAMontgomeryKey`` (a use counts
    /// towards the table, and the first starts the chain: see their slots); everything else
    /// through `EVP_PKEY_verify`.
    func signatureEngine(for algorithm: SignatureAlgorithm, signatureLength: Int) -> SignatureEngine {
        switch algorithm.family {
        case .edDSA:
            return signatureLength == 64 ? .evp(Unmanaged.passUnretained(self)) : .refused
        case .rsaPKCS1:
            guard signatureLength == (bits + 7) / 8 else { return .refused }
            if let chain = readyRSAChain { return .rsaChain(chain) }
            return .evp(Unmanaged.passUnretained(self))
        case .rsaPSS:
            return signatureLength == (bits + 7) / 8 ? .evp(Unmanaged.passUnretained(self)) : .refused
        case .ecdsa(_, let scalarSize):
            guard signatureLength == 2 * scalarSize else { return .refused }
            if algorithm == .es256, let table = fixedBase { return .fixedBaseP256(Unmanaged.passUnretained(table)) }
            return .evp(Unmanaged.passUnretained(self))
        }
    }

    /// Whether `signature` (in JWS form) is a valid `algorithm` signature of `signingInput`,
    /// checked by this key's engine for it (``signatureEngine(for:signatureLength:)``): the message
    /// itself for EdDSA, else its digest. Only OpenSSL's `1` (or a fast path's own valid) counts as
    /// valid; any failure leaves the thread's error queue empty.
    func isValidSignature(
        _ signature: UnsafeRawBufferPointer,
        over signingInput: UnsafeRawBufferPointer,
        algorithm: SignatureAlgorithm
    ) -> Bool {
        let contexts = ThreadContexts.current
        let engine = signatureEngine(for: algorithm, signatureLength: signature.count)
        guard let digest = algorithm.unretainedDigest else {
            return engine.isValidSignature(signature, message: signingInput, contexts: contexts)
        }
        let room = contexts.digestRoom
        let length = digest._withUnsafeGuaranteedRef { contexts.hash(signingInput, with: $0, into: room) }
        return engine.isValidSignature(
            signature, digest: UnsafeRawBufferPointer(rebasing: room[..<length]), algorithm: algorithm,
            contexts: contexts)
    }

    /// The ``SignatureEngine/evp(_:)`` check of a digest: `EVP_PKEY_verify` with this thread's
    /// prepared context for this key and algorithm, over the raw RSA signature or the ECDSA R‖S
    /// converted to minimal DER through `ECDSA_SIG` (OpenSSL itself rejects R or S outside 1…n−1).
    func isValidThroughEVP(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm,
        contexts: ThreadContexts
    ) -> Bool {
        switch algorithm.family {
        case .edDSA:
            return false
        case .rsaPKCS1, .rsaPSS:
            return verifyDigest(signature, digest, algorithm: algorithm, contexts: contexts)
        case .ecdsa(_, let scalarSize):
            guard signature.count == 2 * scalarSize else { return false }
            return withUnsafeTemporaryAllocation(byteCount: 2 * scalarSize + 16, alignment: 1) { der in
                let derLength = copenssl_ecdsa_raw_to_der(
                    signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                    der.baseAddress?.assumingMemoryBound(to: UInt8.self), der.count)
                guard derLength > 0 else {
                    OpenSSLFailure.clear()
                    return false
                }
                return verifyDigest(
                    UnsafeRawBufferPointer(rebasing: der[..<derLength]), digest, algorithm: algorithm,
                    contexts: contexts)
            }
        }
    }

    /// `EVP_PKEY_verify` of a DER (ECDSA) or raw (RSA) signature over `digest`, with this thread's
    /// prepared context for this key and algorithm.
    private func verifyDigest(
        _ signature: UnsafeRawBufferPointer, _ digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm,
        contexts: ThreadContexts
    ) -> Bool {
        guard let context = contexts.verifyContext(for: self, algorithm: algorithm) else { return false }
        let rc = EVP_PKEY_verify(
            context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
            digest.baseAddress?.assumingMemoryBound(to: UInt8.self), digest.count)
        if rc != 1 { OpenSSLFailure.clear() }
        return rc == 1
    }

    /// An ES256 signature (r‖s) of a SHA-256 `digest` checked by OpenSSL's own `EVP_PKEY_verify`,
    /// never the fixed-base path: the reference that path is tested and fuzzed against.
    package func isValidES256ThroughEVP(_ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64, digest.count == 32 else { return false }
        return isValidThroughEVP(signature, digest: digest, algorithm: .es256, contexts: .current)
    }

    /// An RS256, RS384 or RS512 signature of `digest` checked by OpenSSL's own `EVP_PKEY_verify`,
    /// never the Montgomery chain: the reference that path is tested and fuzzed against.
    package func isValidPKCS1ThroughEVP(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm
    ) -> Bool {
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
