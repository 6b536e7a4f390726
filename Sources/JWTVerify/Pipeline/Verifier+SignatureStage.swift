extension Verifier {
    /// Stage B for one token (step 9): the chosen key's own check of the signature over the
    /// token's `header.payload` bytes. With `fingerprint`, a SHA-256 signature's digest state is
    /// continued over the rest of the token into the trace's fingerprint.
    func checkSignature(_ prepared: inout PreparedToken, fingerprint: Bool = false) {
        guard prepared.awaitsSignature else { return }
        let algorithm = prepared.header.algorithm
        guard let key = signingKey(of: prepared) else { return settle(&prepared, valid: false) }
        guard fingerprint, algorithm.hashesWithSHA256 else {
            let valid = key._withUnsafeGuaranteedRef {
                $0.isValidSignature(prepared.signature, over: prepared.signingInput, algorithm: algorithm)
            }
            return settle(&prepared, valid: valid)
        }
        let contexts = ThreadContexts.current
        let valid = withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            hashSigningInput(&prepared, into: digest, contexts: contexts)
            return key._withUnsafeGuaranteedRef {
                $0.isValidSignature(
                    prepared.signature, digest: UnsafeRawBufferPointer(digest), algorithm: algorithm, contexts: contexts
                )
            }
        }
        settle(&prepared, valid: valid)
    }

    /// SHA-256 of the signing input into `digest`, and the token's fingerprint continued from the
    /// same state into its trace.
    func hashSigningInput(
        _ prepared: inout PreparedToken, into digest: UnsafeMutableRawBufferPointer, contexts: ThreadContexts
    ) {
        var fingerprint = SHA256Digest()
        fingerprint.withUnsafeMutableBytes { continued in
            _ = contexts.hash(
                prepared.signingInput,
                continuing: UnsafeRawBufferPointer(rebasing: prepared.token[prepared.jws.signingInput.upperBound...]),
                with: MessageDigest.sha256, into: digest, continued: continued)
        }
        prepared.trace.fingerprint = fingerprint
    }

    /// Stage B for a batch (at most ``Verifier/stageSize`` tokens): ES256 signatures
    /// whose key has its fixed-base table are checked together, with one modular inversion for
    /// all (``FixedBaseP256Key/verify(count:keys:digests:signatures:valid:)``); RS256, RS384 and
    /// RS512 signatures the multi-buffer engine takes go eight to a call, grouped by modulus size
    /// (``MultiBufferEngine``); every other signature by its key's own check, as for one token.
    /// Each verdict depends on its own token alone. With `fingerprints`, as
    /// ``checkSignature(_:fingerprint:)``.
    func checkSignatures(
        _ batch: UnsafeMutableBufferPointer<PreparedToken>, contexts: ThreadContexts, fingerprints: Bool
    ) {
        precondition(batch.count <= Verifier.stageSize, "a signature batch of \(batch.count)")
        withUnsafeTemporaryAllocation(byteCount: 32 * max(batch.count, 1), alignment: 8) { digests in
            withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: max(batch.count, 1)) { tables in
                withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: 2 * max(batch.count, 1)) {
                    pointers in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * max(batch.count, 1)) { scratch in
                        // Indices of grouped ES256 tokens from the start, of laned RS* tokens from the
                        // end of the first part; each laned token's modulus size in the second.
                        let members = UnsafeMutableBufferPointer(rebasing: scratch[..<(2 * max(batch.count, 1))])
                        let sizes = UnsafeMutableBufferPointer(rebasing: scratch[(2 * max(batch.count, 1))...])
                        var grouped = 0
                        // RS* tokens for the multi-buffer engine, from the end of `members` down.
                        var laned = 0
                        let useLanes = MultiBufferEngine.isLoaded && batch.count >= MultiBufferEngine.minimumLanes
                        // Through the base pointer: a buffer's subscript would copy each token.
                        let tokens = batch.baseAddress!
                        for index in batch.indices where tokens[index].awaitsSignature {
                            guard let table = fixedBaseTable(for: tokens + index) else {
                                if useLanes, let bits = multiBufferLanes(for: tokens + index) {
                                    laned += 1
                                    members[2 * batch.count - laned] = index
                                    sizes[index] = bits
                                    continue
                                }
                                checkSignature(&tokens[index], fingerprint: fingerprints)
                                continue
                            }
                            let digest = UnsafeMutableRawBufferPointer(
                                rebasing: digests[(grouped * 32)..<(grouped * 32 + 32)])
                            if fingerprints {
                                hashSigningInput(&tokens[index], into: digest, contexts: contexts)
                            } else {
                                _ = contexts.hash(tokens[index].signingInput, with: MessageDigest.sha256, into: digest)
                            }
                            tables[grouped] = table
                            pointers[grouped] = UnsafeRawPointer(digest.baseAddress!)
                            pointers[batch.count + grouped] = tokens[index].signature.baseAddress
                            members[grouped] = index
                            grouped += 1
                        }
                        if laned > 0 {
                            // In batch order: the lanes were noted from the end down.
                            var laneMembers = UnsafeMutableBufferPointer(
                                rebasing: members[(2 * batch.count - laned)..<(2 * batch.count)])
                            laneMembers.reverse()
                            checkRSALanes(
                                tokens, laneMembers, sizes: sizes, contexts: contexts, fingerprints: fingerprints)
                        }
                        guard grouped > 0 else { return }
                        // Signatures follow the digests in `pointers`: move them up against them.
                        for i in 0..<grouped { pointers[grouped + i] = pointers[batch.count + i] }
                        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: grouped) { valid in
                            FixedBaseP256Key.verify(
                                count: grouped, keys: tables.baseAddress!, digests: pointers.baseAddress!,
                                signatures: pointers.baseAddress! + grouped, valid: valid.baseAddress!)
                            for i in 0..<grouped { settle(&tokens[members[i]], valid: valid[i] == 1) }
                        }
                    }
                }
            }
        }
    }

    /// The fixed-base table of the key an ES256 token chose, when it has one and the signature
    /// has ES256's length (unretained: the key set owns the key, and the key its table).
    private func fixedBaseTable(for prepared: UnsafePointer<PreparedToken>) -> OpaquePointer? {
        guard prepared.pointee.header.algorithm == .es256, prepared.pointee.signatureRange.count == 64,
            let key = signingKey(of: prepared.pointee)
        else { return nil }
        return key._withUnsafeGuaranteedRef { $0.fixedBase?.pointer }
    }

    /// The key a prepared token's signature is checked with: its `x5c` leaf's (App Store), or the
    /// key set's entry it chose. Unretained: the key set, or the token's own reference to its
    /// chain key, keeps it alive through the stage.
    func signingKey(of prepared: borrowing PreparedToken) -> Unmanaged<EVPPublicKey>? {
        if let certificateKey = prepared.certificateKey { return Unmanaged.passUnretained(certificateKey) }
        return keys.slots[prepared.keyIndex].key
    }

    /// Records the signature's verdict.
    func settle(_ prepared: inout PreparedToken, valid: Bool) {
        guard !valid else {
            prepared.stage = .signed
            return
        }
        prepared.stage = .rejected(
            VerificationError(
                .badSignature,
                detail: prepared.certificateKey != nil
                    ? "\(prepared.header.algorithm.name) signature does not verify with the x5c leaf's key"
                    : "\(prepared.header.algorithm.name) signature does not verify with kid \(Self.quoted(keys.keys[prepared.keyIndex].keyID ?? ""))"
            ))
    }
}

extension Verifier {
    /// Whether checking several of this verifier's tokens at once is cheaper than one by one: a
    /// key the policy lets verify ES256 (one inversion for the whole batch), or RS256/384/512 with
    /// the multi-buffer engine loaded. A face that must hold requests back to batch them (serve's
    /// `/auth`) does so only then.
    package var gainsFromBatches: Bool {
        let batched: [SignatureAlgorithm] = MultiBufferEngine.isLoaded ? [.es256, .rs256, .rs384, .rs512] : [.es256]
        let algorithms = batched.filter(policy.algorithms.contains)
        return keys.slots.contains { slot in algorithms.contains(where: slot.allows) }
    }
}
