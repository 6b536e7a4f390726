internal import CFixedBaseP256
internal import COpenSSL
internal import CRSAMontgomery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// OpenSSL contexts owned by one thread and reused for every token that thread verifies.
///
/// `EVP_MD_CTX` and `EVP_PKEY_CTX` must not be shared between threads, and creating them per call
/// costs about 10% of an RS256 verification. So each thread keeps one digest context and one
/// prepared verify context per (key, algorithm) it has used, reached through a POSIX thread-local
/// slot: no lock, no allocation once warm. Contexts are freed when the thread exits, or all at once
/// when a thread has prepared more than ``capacity`` of them (key sets rotate).
///
/// The benchmark's raw OpenSSL limit owns one of these per worker thread and calls the same
/// ``prepare(key:algorithm:)``, ``hash(_:with:into:)`` and ``verify(prehashed:signature:digest:)``
/// the core calls, so the two measure the same OpenSSL work.
package final class ThreadContexts {
    /// The digest context used for hashing signing inputs and nonces.
    let digestContext: OpaquePointer
    /// The context re-initialised for each one-shot (EdDSA) verification.
    let oneShotContext: OpaquePointer
    /// The copy of a digest state that continues into a token's fingerprint (reports only).
    let fingerprintContext: OpaquePointer
    // The contexts are one thread's own (``current``): their stored properties skip the run-time
    // exclusivity check each mutating access of a class's property otherwise pays per token.
    @exclusivity(unchecked) private var verifyContexts: [UInt64: OpaquePointer] = [:]
    private static let capacity = 256
    private var fixedBaseScratch: OpaquePointer? = nil
    private var rsaChainScratch: OpaquePointer? = nil
    /// The headers this thread verified last, with the key each selected.
    @exclusivity(unchecked) var headers = HeaderMemo()
    /// The buffer this thread's walks decode tokens into.
    @exclusivity(unchecked) var scratch = TokenScratch()
    /// What this thread's batch evaluations reuse: the second is for a batch evaluated inside
    /// another (the tokens nested in a chunk's App Store notifications).
    private let batchWorkspace = BatchWorkspace()
    private let nestedBatchWorkspace = BatchWorkspace()
    /// Room for one signature's digest (SHA-512's 64 octets): the single-token signature check's.
    let digestRoom = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)

    /// Contexts owned by the caller (the raw limit); verification uses ``current``.
    package init() {
        guard let ctx = EVP_MD_CTX_new(), let oneShot = EVP_MD_CTX_new(), let fingerprint = EVP_MD_CTX_new() else {
            fatalError("EVP_MD_CTX_new: out of memory")
        }
        digestContext = ctx
        fingerprintContext = fingerprint
        oneShotContext = oneShot
    }

    deinit {
        EVP_MD_CTX_free(digestContext)
        EVP_MD_CTX_free(oneShotContext)
        EVP_MD_CTX_free(fingerprintContext)
        for ctx in verifyContexts.values { EVP_PKEY_CTX_free(ctx) }
        jwtv_p256_scratch_free(fixedBaseScratch)
        jwtv_rsa_scratch_free(rsaChainScratch)
        scratch.deallocate()
        digestRoom.deallocate()
    }

    /// This thread's batch workspace, or a new one while it is lent.
    func lendBatchWorkspace() -> BatchWorkspace {
        let workspace =
            !batchWorkspace.isLent ? batchWorkspace : !nestedBatchWorkspace.isLent ? nestedBatchWorkspace : nil
        guard let workspace else { return BatchWorkspace() }
        workspace.isLent = true
        return workspace
    }

    /// Ends the loan of ``lendBatchWorkspace()``.
    func giveBack(_ workspace: BatchWorkspace) {
        workspace.trim()
        workspace.isLent = false
    }

    /// This thread's temporaries for ``FixedBaseP256Key``, made on first use.
    var p256Scratch: OpaquePointer {
        if let scratch = fixedBaseScratch { return scratch }
        guard let scratch = jwtv_p256_scratch_new() else { fatalError("jwtv_p256_scratch_new: out of memory") }
        fixedBaseScratch = scratch
        return scratch
    }

    /// This thread's temporaries for ``RSAMontgomeryKey``, made on first use.
    var rsaScratch: OpaquePointer {
        if let scratch = rsaChainScratch { return scratch }
        guard let scratch = jwtv_rsa_scratch_new() else { fatalError("jwtv_rsa_scratch_new: out of memory") }
        rsaChainScratch = scratch
        return scratch
    }

    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<ThreadContexts>.fromOpaque(pointer).release()
        }
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// This thread's contexts, created on first use.
    static var current: ThreadContexts {
        if let pointer = pthread_getspecific(slot) {
            return Unmanaged<ThreadContexts>.fromOpaque(pointer).takeUnretainedValue()
        }
        let contexts = ThreadContexts()
        pthread_setspecific(slot, Unmanaged.passRetained(contexts).toOpaque())
        return contexts
    }

    /// Hashes `input` into `output` like ``hash(_:with:into:)``, and also the digest of `input`
    /// followed by `rest` into `continued` (at least `digest.size` octets): for SHA-256 signatures,
    /// the token's fingerprint, SHA-256 of the whole token, from the state the signature needs anyway.
    func hash(
        _ input: UnsafeRawBufferPointer, continuing rest: UnsafeRawBufferPointer, with digest: MessageDigest,
        into output: UnsafeMutableRawBufferPointer, continued: UnsafeMutableRawBufferPointer
    ) -> Int {
        var length: UInt32 = 0
        var continuedLength: UInt32 = 0
        guard EVP_DigestInit_ex(digestContext, digest.pointer, nil) == 1,
            EVP_DigestUpdate(digestContext, input.baseAddress, input.count) == 1,
            EVP_MD_CTX_copy_ex(fingerprintContext, digestContext) == 1,
            EVP_DigestFinal_ex(digestContext, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
            EVP_DigestUpdate(fingerprintContext, rest.baseAddress, rest.count) == 1,
            EVP_DigestFinal_ex(
                fingerprintContext, continued.baseAddress?.assumingMemoryBound(to: UInt8.self), &continuedLength) == 1
        else {
            fatalError("\(digest.name) digest failed: \(OpenSSLFailure.drain("digest"))")
        }
        return Int(length)
    }

    /// Hashes `input` with `digest` into `output` (at least `digest.size` octets); returns the length.
    package func hash(
        _ input: UnsafeRawBufferPointer, with digest: MessageDigest, into output: UnsafeMutableRawBufferPointer
    ) -> Int {
        var length: UInt32 = 0
        guard EVP_DigestInit_ex(digestContext, digest.pointer, nil) == 1,
            EVP_DigestUpdate(digestContext, input.baseAddress, input.count) == 1,
            EVP_DigestFinal_ex(digestContext, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
        else {
            fatalError("\(digest.name) digest failed: \(OpenSSLFailure.drain("digest"))")
        }
        return Int(length)
    }

    /// The prepared `EVP_PKEY_CTX` that verifies pre-hashed `algorithm` signatures with `key`, or
    /// `nil` when OpenSSL refuses to prepare one (the key cannot do this algorithm).
    func verifyContext(for key: EVPPublicKey, algorithm: SignatureAlgorithm) -> OpaquePointer? {
        let slotKey = key.id << 8 | UInt64(algorithm.backing.rawValue)
        if let ctx = verifyContexts[slotKey] { return ctx }
        guard let ctx = Self.prepare(key: key, algorithm: algorithm) else { return nil }
        if verifyContexts.count >= Self.capacity {
            for old in verifyContexts.values { EVP_PKEY_CTX_free(old) }
            verifyContexts.removeAll(keepingCapacity: true)
        }
        verifyContexts[slotKey] = ctx
        return ctx
    }

    /// Hashes `signingInput` with `digest` and checks the DER or raw `signature` against it with
    /// the prepared `context`; OpenSSL's `1` only counts as valid, and a failure leaves the
    /// thread's error queue empty.
    package func verify(
        prehashed context: PreparedVerifyContext, signature: UnsafeRawBufferPointer,
        over signingInput: UnsafeRawBufferPointer,
        digest: MessageDigest
    ) -> Bool {
        verify(prehashed: context.pointer, signature: signature, over: signingInput, digest: digest)
    }

    /// ``verify(prehashed:signature:over:digest:)`` with a context from this thread's cache.
    func verify(
        prehashed context: OpaquePointer, signature: UnsafeRawBufferPointer, over signingInput: UnsafeRawBufferPointer,
        digest: MessageDigest
    ) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { hash in
            let length = self.hash(signingInput, with: digest, into: hash)
            let rc = EVP_PKEY_verify(
                context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
                hash.baseAddress?.assumingMemoryBound(to: UInt8.self), length)
            if rc != 1 { OpenSSLFailure.clear() }
            return rc == 1
        }
    }

    /// One-shot (EdDSA) verification of `message` with `key`.
    package func verifyOneShot(
        _ signature: UnsafeRawBufferPointer, over message: UnsafeRawBufferPointer, key: EVPPublicKey
    ) -> Bool {
        let ctx = oneShotContext
        // A one-shot context must be reset before reuse, or a failed verification poisons the next.
        _ = EVP_MD_CTX_reset(ctx)
        guard EVP_DigestVerifyInit_ex(ctx, nil, nil, nil, nil, key.pointer, nil) == 1 else {
            OpenSSLFailure.clear()
            return false
        }
        let rc = EVP_DigestVerify(
            ctx, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
            message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count)
        if rc != 1 { OpenSSLFailure.clear() }
        return rc == 1
    }

    /// A verify context for `key` and `algorithm` owned by the caller (freed with it): the same
    /// preparation the core's cached contexts get.
    package static func prepared(key: EVPPublicKey, algorithm: SignatureAlgorithm) -> PreparedVerifyContext? {
        prepare(key: key, algorithm: algorithm).map(PreparedVerifyContext.init(takingOwnershipOf:))
    }

    /// The one place verify contexts are prepared: digest, padding, MGF1 digest and PSS salt length.
    private static func prepare(key: EVPPublicKey, algorithm: SignatureAlgorithm) -> OpaquePointer? {
        guard let digest = algorithm.digest, let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            return nil
        }
        var ok = EVP_PKEY_verify_init(ctx) == 1 && EVP_PKEY_CTX_set_signature_md(ctx, digest.pointer) == 1
        switch algorithm.family {
        case .rsaPKCS1:
            ok = ok && copenssl_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1
        case .rsaPSS:
            ok =
                ok && copenssl_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
                && copenssl_set_rsa_mgf1_md(ctx, digest.pointer) == 1
                && copenssl_set_rsa_pss_saltlen(ctx, Int32(digest.size)) == 1
        case .ecdsa, .edDSA:
            break
        }
        guard ok else {
            EVP_PKEY_CTX_free(ctx)
            OpenSSLFailure.clear()
            return nil
        }
        return ctx
    }
}

/// A prepared `EVP_PKEY_CTX` owned by the caller (the raw limit), freed exactly once, in `deinit`.
package final class PreparedVerifyContext {
    let pointer: OpaquePointer
    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_CTX_free(pointer) }
}
