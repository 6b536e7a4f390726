internal import CRSAMontgomery

extension Verifier {
    /// Stage B for one token (step 9): the chosen key's own check of the signature over the
    /// token's `header.payload` bytes. With `fingerprint`, a SHA-256 signature's digest state is
    /// continued over the rest of the token into the trace's fingerprint.
    func checkSignature(_ prepared: inout PreparedToken, fingerprint: Bool = false) {
        guard prepared.awaitsSignature else { return }
        let algorithm = prepared.header.algorithm
        guard let key = keys.slots[prepared.keyIndex].key else { return settle(&prepared, valid: false) }
        guard fingerprint, algorithm.hashesWithSHA256 else {
            let valid = key._withUnsafeGuaranteedRef { $0.isValidSignature(prepared.signature, over: prepared.signingInput, algorithm: algorithm) }
            return settle(&prepared, valid: valid)
        }
        let contexts = ThreadContexts.current
        let valid = withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            hashSigningInput(&prepared, into: digest, contexts: contexts)
            return key._withUnsafeGuaranteedRef {
                $0.isValidSignature(prepared.signature, digest: UnsafeRawBufferPointer(digest), algorithm: algorithm, contexts: contexts)
            }
        }
        settle(&prepared, valid: valid)
    }

    /// SHA-256 of the signing input into `digest`, and the token's fingerprint continued from the
    /// same state into its trace.
    private func hashSigningInput(_ prepared: inout PreparedToken, into digest: UnsafeMutableRawBufferPointer, contexts: ThreadContexts) {
        var fingerprint = SHA256Digest()
        fingerprint.withUnsafeMutableBytes { continued in
            _ = contexts.hash(
                prepared.signingInput, continuing: UnsafeRawBufferPointer(rebasing: prepared.token[prepared.jws.signingInput.upperBound...]),
                with: MessageDigest.sha256, into: digest, continued: continued)
        }
        prepared.trace.fingerprint = fingerprint
    }

    /// Stage B for a batch (at most ``FixedBaseP256Key/batchLimit`` tokens): ES256 signatures
    /// whose key has its fixed-base table are checked together, with one modular inversion for
    /// all (``FixedBaseP256Key/verify(count:keys:digests:signatures:valid:)``); RS256, RS384 and
    /// RS512 signatures the multi-buffer engine takes go eight to a call, grouped by modulus size
    /// (``MultiBufferEngine``); every other signature by its key's own check, as for one token.
    /// Each verdict depends on its own token alone. With `fingerprints`, as
    /// ``checkSignature(_:fingerprint:)``.
    func checkSignatures(_ batch: UnsafeMutableBufferPointer<PreparedToken>, contexts: ThreadContexts, fingerprints: Bool) {
        precondition(batch.count <= FixedBaseP256Key.batchLimit, "a signature batch of \(batch.count)")
        withUnsafeTemporaryAllocation(byteCount: 32 * max(batch.count, 1), alignment: 8) { digests in
            withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: max(batch.count, 1)) { tables in
                withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: 2 * max(batch.count, 1)) { pointers in
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
                            let digest = UnsafeMutableRawBufferPointer(rebasing: digests[(grouped * 32)..<(grouped * 32 + 32)])
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
                            var laneMembers = UnsafeMutableBufferPointer(rebasing: members[(2 * batch.count - laned)..<(2 * batch.count)])
                            laneMembers.reverse()
                            checkRSALanes(tokens, laneMembers, sizes: sizes, contexts: contexts, fingerprints: fingerprints)
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

    /// The modulus size, when `prepared` is an RS256, RS384 or RS512 token whose key the
    /// multi-buffer engine takes and whose signature has the modulus's length.
    private func multiBufferLanes(for prepared: UnsafePointer<PreparedToken>) -> Int? {
        guard MultiBufferEngine.digestKind(prepared.pointee.header.algorithm) != nil, let key = keys.slots[prepared.pointee.keyIndex].key,
            let chain = key._withUnsafeGuaranteedRef({ $0.rsaChainKey }), let bits = MultiBufferEngine.lanes(for: chain),
            prepared.pointee.signatureRange.count == bits / 8
        else { return nil }
        return bits
    }

    /// The RS* tokens at `members` through the multi-buffer engine: by modulus size, eight to a
    /// call; a size with fewer than ``MultiBufferEngine/minimumLanes`` tokens left goes through
    /// each key's own chain.
    private func checkRSALanes(
        _ tokens: UnsafeMutablePointer<PreparedToken>, _ members: UnsafeMutableBufferPointer<Int>, sizes: UnsafeMutableBufferPointer<Int>,
        contexts: ThreadContexts, fingerprints: Bool
    ) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { group in
            for bits in [1024, 2048, 3072, 4096] {
                var count = 0
                for index in members where sizes[index] == bits {
                    group[count] = index
                    count += 1
                }
                var start = 0
                while start < count {
                    let lanes = min(8, count - start)
                    if lanes < MultiBufferEngine.minimumLanes {
                        for i in start..<count { checkSignature(&tokens[group[i]], fingerprint: fingerprints) }
                        break
                    }
                    verifyLanes(tokens, UnsafeBufferPointer(rebasing: group[start..<(start + lanes)]), bits: bits, contexts: contexts, fingerprints: fingerprints)
                    start += lanes
                }
            }
        }
    }

    /// One call of the multi-buffer engine: up to eight RS* tokens whose keys have `bits`-bit moduli.
    private func verifyLanes(
        _ tokens: UnsafeMutablePointer<PreparedToken>, _ lanes: UnsafeBufferPointer<Int>, bits: Int, contexts: ThreadContexts, fingerprints: Bool
    ) {
        withUnsafeTemporaryAllocation(byteCount: 8 * 64, alignment: 8) { digests in
            withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: 8) { chains in
                withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: 16) { pointers in
                    withUnsafeTemporaryAllocation(of: jwtv_rsa_digest.self, capacity: 8) { kinds in
                        withUnsafeTemporaryAllocation(of: Int.self, capacity: 8) { lengths in
                            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { valid in
                                for lane in 0..<8 {
                                    chains[lane] = nil
                                    pointers[lane] = nil
                                    pointers[8 + lane] = nil
                                    kinds[lane] = JWTV_RSA_SHA256
                                    lengths[lane] = 0
                                    guard lane < lanes.count else { continue }
                                    let token = tokens + lanes[lane]
                                    let algorithm = token.pointee.header.algorithm
                                    let digest = UnsafeMutableRawBufferPointer(rebasing: digests[(lane * 64)..<(lane * 64 + 64)])
                                    if fingerprints && algorithm.hashesWithSHA256 {
                                        hashSigningInput(&token.pointee, into: digest, contexts: contexts)
                                        lengths[lane] = 32
                                    } else {
                                        lengths[lane] = algorithm.unretainedDigest!._withUnsafeGuaranteedRef {
                                            contexts.hash(token.pointee.signingInput, with: $0, into: digest)
                                        }
                                    }
                                    chains[lane] = keys.slots[token.pointee.keyIndex].key!._withUnsafeGuaranteedRef { $0.rsaChainKey }
                                    pointers[lane] = token.pointee.signature.baseAddress
                                    pointers[8 + lane] = UnsafeRawPointer(digest.baseAddress!)
                                    kinds[lane] = MultiBufferEngine.digestKind(algorithm)!
                                }
                                MultiBufferEngine.verify8(
                                    keys: chains.baseAddress!, signatures: pointers.baseAddress!, kinds: kinds.baseAddress!,
                                    digests: pointers.baseAddress! + 8, digestLengths: lengths.baseAddress!, bits: bits, valid: valid.baseAddress!)
                                for lane in 0..<lanes.count { settle(&tokens[lanes[lane]], valid: valid[lane] == 1) }
                            }
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
            let key = keys.slots[prepared.pointee.keyIndex].key
        else { return nil }
        return key._withUnsafeGuaranteedRef { $0.fixedBase?.pointer }
    }

    /// Records the signature's verdict.
    private func settle(_ prepared: inout PreparedToken, valid: Bool) {
        guard !valid else {
            prepared.stage = .signed
            return
        }
        prepared.stage = .rejected(
            VerificationError(
                .badSignature,
                detail: "\(prepared.header.algorithm.name) signature does not verify with kid \(Self.quoted(keys.keys[prepared.keyIndex].keyID ?? ""))"
            ))
    }
}
