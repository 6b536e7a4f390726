extension Verifier {
    /// How many tokens the signature stage takes at once: every face hands the pipeline batches
    /// of any size, and the pipeline cuts them into chunks of this many (ES256's fixed-base
    /// tables share one inversion per chunk, and take up to this many).
    package static let stageSize = 128

    /// One token through the pipeline's three stages — prepare, signature, walk — with nothing
    /// traced: the library's own path. The segments are decoded into this thread's scratch (a
    /// temporary buffer for a token over ``TokenScratch/limit`` or while it is lent).
    func evaluateOne(_ token: UnsafeRawBufferPointer, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime)
        -> Result<VerifiedToken, VerificationError>
    {
        if policy.rules.readsNotificationEnvelope, token.first == UInt8(ascii: "{"),
            case .success(let unwrapped) = NotificationEnvelope.withSignedPayload(
                token, { evaluateOne($0, rawNonce: rawNonce, time: time) })
        {
            return unwrapped
        }
        var prepared = PreparedToken(token)
        admit(&prepared)
        guard prepared.awaitsSignature else { return walk(&prepared, rawNonce: rawNonce, time: time, tracing: false) }
        // This thread's buffer, without a closure (see TokenScratch); a temporary one otherwise.
        let contexts = ThreadContexts.current
        if let scratch = contexts.scratch.lend(byteCount: token.count) {
            defer { contexts.scratch.giveBack() }
            return stages(&prepared, scratch: scratch, contexts: contexts, rawNonce: rawNonce, time: time)
        }
        return withUnsafeTemporaryAllocation(byteCount: max(token.count, 1), alignment: 8) { scratch in
            stages(&prepared, scratch: scratch, contexts: contexts, rawNonce: rawNonce, time: time)
        }
    }

    /// Prepare, signature and walk for one admitted token.
    private func stages(
        _ prepared: inout PreparedToken, scratch: UnsafeMutableRawBufferPointer, contexts: ThreadContexts,
        rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime
    ) -> Result<VerifiedToken, VerificationError> {
        prepare(&prepared, scratch: scratch, contexts: contexts, tracing: false)
        checkSignature(&prepared, contexts: contexts)
        return walk(&prepared, rawNonce: rawNonce, time: time, tracing: false)
    }

    /// The tokens of `batch` through the pipeline, ``Verifier/stageSize`` at a time:
    /// each is prepared, then the signature stage sees them all at once, then each is walked and
    /// handed to `body` with its position, its bytes, its verdict and (with `tracing`) its trace,
    /// in order; with `fingerprints`, the trace carries each SHA-256 signature's fingerprint. The
    /// bytes and the trace's borrowed views last until `body` returns. Every face that verifies
    /// more than one token calls this. Each verdict has had the policy's DPoP rules applied
    /// (``judgeProof(_:token:dpop:at:)``) with the proof `proofs` gives for its position (none
    /// without `proofs`).
    package func evaluate(
        _ batch: TokenBatch, at time: EvaluationTime, tracing: Bool, fingerprints: Bool = false,
        proofs: ((Int) -> DPoPRequest?)? = nil,
        _ body: (
            _ index: Int, _ token: UnsafeRawBufferPointer, _ result: Result<VerifiedToken, VerificationError>,
            _ trace: borrowing WalkTrace
        )
            -> Void
    ) {
        guard !batch.isEmpty else { return }
        let contexts = ThreadContexts.current
        let workspace = contexts.lendBatchWorkspace()
        defer { contexts.giveBack(workspace) }
        batch.withUnsafeBytes { bytes in
            var start = 0
            while start < batch.count {
                let end = min(start + Verifier.stageSize, batch.count)
                evaluateChunk(
                    batch, start..<end, bytes: bytes, workspace: workspace, contexts: contexts, time: time,
                    tracing: tracing,
                    fingerprints: fingerprints, proofs: proofs, body)
                start = end
            }
        }
    }

    /// One chunk of ``evaluate(_:at:tracing:_:)``, stage by stage.
    private func evaluateChunk(
        _ batch: TokenBatch, _ range: Range<Int>, bytes: UnsafeRawBufferPointer, workspace: BatchWorkspace,
        contexts: ThreadContexts,
        time: EvaluationTime, tracing: Bool, fingerprints: Bool, proofs: ((Int) -> DPoPRequest?)?,
        _ body: (Int, UnsafeRawBufferPointer, Result<VerifiedToken, VerificationError>, borrowing WalkTrace) -> Void
    ) {
        // Room only for tokens the size check lets through: a batch of huge ones needs none.
        var decodedBytes = 0
        for index in range where batch.tokenRange(at: index).count <= policy.maxTokenBytes {
            decodedBytes += batch.tokenRange(at: index).count
        }
        let arena = workspace.arena(byteCount: decodedBytes)
        let prepared = workspace.prepared
        var count = 0
        defer { prepared.deinitialize(count: count) }
        // Stage A: prepare each token once, in place.
        var offset = 0
        for index in range {
            let token = UnsafeRawBufferPointer(rebasing: bytes[batch.tokenRange(at: index)])
            let slot = prepared + count
            if policy.rules.readsNotificationEnvelope, token.first == UInt8(ascii: "{") {
                let rawNonce = batch.nonceRange(at: index).map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
                slot.initialize(
                    to: PreparedToken(token, stage: .decided(evaluateOne(token, rawNonce: rawNonce, time: time))))
                count += 1
                continue
            }
            slot.initialize(to: PreparedToken(token))
            admit(&slot.pointee, earlier: UnsafeBufferPointer(start: prepared, count: count))
            count += 1
            switch slot.pointee.stage {
            case .awaitingSignature:
                prepare(
                    &slot.pointee,
                    scratch: UnsafeMutableRawBufferPointer(rebasing: arena[offset..<(offset + token.count)]),
                    contexts: contexts, tracing: tracing)
                offset += token.count
            case .repeatOf:
                slot.pointee.scratch = UnsafeMutableRawBufferPointer(rebasing: arena[offset..<(offset + token.count)])
                offset += token.count
            default: break
            }
        }
        // Stage B: every signature of the chunk at once.
        checkSignatures(
            UnsafeMutableBufferPointer(start: prepared, count: count), workspace: workspace, contexts: contexts,
            fingerprints: fingerprints)
        // Stage C: the rest of each token's walk, handed out in order. A token that carries signed
        // data of its own waits for it, and so does every token after it.
        var holding = false
        for (position, index) in range.enumerated() {
            let rawNonce = batch.nonceRange(at: index).map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
            let step = walkStep(&prepared[position], rawNonce: rawNonce, time: time, tracing: tracing)
            if !holding, case .done(let result) = step {
                handOut(result, position: position, index: index, prepared: prepared, proofs: proofs, time: time, body)
            } else {
                holding = true
                workspace.heldSteps.append((position, step))
            }
        }
        guard holding else { return }
        // Taken out for the loop below (which hands out through `body`), put back empty after.
        var held = exchange(&workspace.heldSteps, with: [])
        defer {
            held.removeAll(keepingCapacity: true)
            workspace.heldSteps = held
        }
        // The nested tokens of every pending token, verified as one batch of their own.
        let nestedVerdicts = verifyNested(of: held, time: time)
        var next = 0
        for (position, step) in held {
            var result: Result<VerifiedToken, VerificationError>
            switch step {
            case .done(let decided): result = decided
            case .pending(let pending):
                let verdicts = nestedVerdicts[next..<(next + pending.nested.count)]
                next += pending.nested.count
                result = conclude(&prepared[position], pending, nested: verdicts, tracing: tracing)
            }
            handOut(
                result, position: position, index: range.lowerBound + position, prepared: prepared, proofs: proofs,
                time: time, body)
        }
    }

    /// One token's verdict, with the policy's DPoP rules applied, handed to `body` with its trace.
    @inline(__always)
    private func handOut(
        _ result: Result<VerifiedToken, VerificationError>, position: Int, index: Int,
        prepared: UnsafeMutablePointer<PreparedToken>, proofs: ((Int) -> DPoPRequest?)?, time: EvaluationTime,
        _ body: (Int, UnsafeRawBufferPointer, Result<VerifiedToken, VerificationError>, borrowing WalkTrace) -> Void
    ) {
        let result = judgeProof(result, token: prepared[position].token, dpop: proofs?(index), at: time)
        // Moved out, not copied (a copy costs a reference count per string it holds).
        let trace = exchange(&prepared[position].trace, with: WalkTrace())
        body(index, prepared[position].token, result, trace)
    }

    /// The verdicts of the tokens nested in the pending steps, in order: one batch through the
    /// pipeline, so their signatures are checked together.
    private func verifyNested(of steps: [(position: Int, step: WalkStep)], time: EvaluationTime) -> [Result<
        VerifiedToken, VerificationError
    >] {
        var count = 0
        var bytes = 0
        for case (_, .pending(let pending)) in steps {
            count += pending.nested.count
            for token in pending.nested { bytes += token.byteCount }
        }
        var nested = TokenBatch(minimumCapacity: count, bytes: bytes)
        for case (_, .pending(let pending)) in steps {
            for token in pending.nested {
                token.withBytes(in: pending.payload) { nested.append(bytes: $0, nonce: nil) }
            }
        }
        var verdicts: [Result<VerifiedToken, VerificationError>] = []
        verdicts.reserveCapacity(nested.count)
        evaluate(nested, at: time, tracing: false) { _, _, result, _ in verdicts.append(result) }
        return verdicts
    }

    /// Verifies only the JWS layer of `token` (size, structure, header, key, signature) and returns
    /// the algorithm and the decoded payload, without reading it as JWT claims. For JWS payloads
    /// that are not JWTs (RFC examples, Wycheproof) and for diagnostics; never for accepting sign-ins.
    package func verifySignatureOnly(_ token: [UInt8]) -> Result<(SignatureAlgorithm, [UInt8]), VerificationError> {
        guard token.count <= policy.maxTokenBytes else {
            return .failure(
                VerificationError(
                    .tooLarge, detail: "token is \(token.count) octets; the limit is \(policy.maxTokenBytes)"))
        }
        return token.withUnsafeBytes { bytes in
            withUnsafeTemporaryAllocation(byteCount: max(bytes.count, 1), alignment: 8) { scratch in
                var prepared = PreparedToken(bytes)
                prepare(&prepared, scratch: scratch, contexts: ThreadContexts.current, tracing: false)
                checkSignature(&prepared)
                switch prepared.stage {
                case .signed: return .success((prepared.header.algorithm, Array(prepared.payload!)))
                case .rejected(let error): return .failure(error)
                case .awaitingSignature, .cached, .decided, .repeatOf:
                    preconditionFailure("a JWS-only check ends signed or rejected")
                }
            }
        }
    }
}
