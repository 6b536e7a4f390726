extension Verifier {
    /// Stage B for a chunk (at most ``Verifier/stageSize`` tokens): each token's engine is chosen
    /// by its key, as for one token; the ``SignaturePlan`` groups them; then the signatures checked
    /// alone go one by one (``checkSignature(_:engine:contexts:fingerprint:)``), the ES256 ones
    /// with fixed-base tables in one call, and the multi-buffer lanes eight to a call. Each verdict
    /// depends on its own token alone. With `fingerprints`, as ``checkSignature(_:contexts:fingerprint:)``.
    func checkSignatures(
        _ chunk: UnsafeMutableBufferPointer<PreparedToken>, workspace: BatchWorkspace, contexts: ThreadContexts,
        fingerprints: Bool
    ) {
        precondition(chunk.count <= Verifier.stageSize, "a signature chunk of \(chunk.count)")
        guard let tokens = chunk.baseAddress else { return }
        // Taken out of the workspace for the stage, so the plan is a local value and keeps its room.
        var plan = SignaturePlan()
        swap(&plan, &workspace.plan)
        defer { swap(&plan, &workspace.plan) }
        plan.removeAll()
        // Through the base pointer: a buffer's subscript would copy each token.
        for position in chunk.indices where tokens[position].awaitsSignature {
            guard let engine = signatureEngine(of: tokens + position) else {
                settle(&tokens[position], valid: false)
                continue
            }
            plan.add(position, engine: engine)
        }
        plan.seal()
        for member in plan.alone {
            checkSignature(
                &tokens[member.position], engine: member.engine, contexts: contexts, fingerprint: fingerprints)
        }
        let batch = workspace.signatureBatch
        if !plan.fixedBase.isEmpty {
            check(plan.fixedBase[...], of: tokens, in: batch, contexts: contexts, fingerprints: fingerprints) {
                FixedBaseP256Key.verify($0)
            }
        }
        plan.forEachLaneCall { bits, members in
            check(members, of: tokens, in: batch, contexts: contexts, fingerprints: fingerprints) {
                MultiBufferEngine.verify($0, bits: bits)
            }
        }
    }

    /// One batch call: the members' digests and signatures into `batch`, `call` over it, and each
    /// member's verdict.
    private func check(
        _ members: ArraySlice<SignaturePlan.Member>, of tokens: UnsafeMutablePointer<PreparedToken>,
        in batch: SignatureBatch, contexts: ThreadContexts, fingerprints: Bool, _ call: (SignatureBatch) -> Void
    ) {
        batch.removeAll()
        for member in members {
            let token = tokens + member.position
            let length = hashSigningInput(
                &token.pointee, into: batch.nextDigest, contexts: contexts, fingerprint: fingerprints)
            batch.append(
                token.pointee.signature, engine: member.engine, digestLength: length,
                algorithm: token.pointee.header.algorithm)
        }
        call(batch)
        for (index, member) in members.enumerated() { settle(&tokens[member.position], valid: batch.isValid(index)) }
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
