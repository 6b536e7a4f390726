import JWTVerify

extension AuditEngine {
    /// A token found in a range of lines, waiting for its verdict.
    private struct Pending {
        var origin: AuditOrigin
        var found: TokenExtractor.Found
        /// Where the token's line (or piece) starts in the batch's storage.
        var line: Int
        /// What to add to the found column: a piece's offset in its line, less a tag's length.
        var columnShift: Int
    }

    /// The tokens and discarded fragments of a range of lines, each in input order: for records
    /// already written (on the worker thread), for a report as values. The range's tokens go to
    /// the pipeline as one batch.
    func evaluate(_ batch: LineBatch, _ range: Range<Int>, file: String) -> AuditPart {
        var discarded: [AuditDiscard] = []
        var pending: [Pending] = []
        // --partials: the runs of these lines, and the run of each token found and each discard.
        var lineRuns: [AuditRun] = []
        var recordRuns: [Int] = []
        var discardRuns: [Int] = []
        func enterRun(_ place: AuditRun.Place) {
            guard partials else { return }
            if let last = lineRuns.last, last.end.isContinued(by: place) {
                lineRuns[lineRuns.count - 1].end = place
            } else {
                lineRuns.append(AuditRun(at: place))
            }
        }
        func noteDiscards() { while discardRuns.count < discarded.count { discardRuns.append(lineRuns.count - 1) } }
        func noteTokens() { while recordRuns.count < pending.count { recordRuns.append(lineRuns.count - 1) } }
        // The batch's tokens share a few headers: each judged once.
        var headers = HeaderSegmentMemo()
        for index in range {
            let lineNumber = batch.lineNumber(at: index)
            var bytes: Range<Int>
            // Where this entry's bytes start in its line, and the line's head for later pieces.
            var offset = 0
            var head: [UInt8]? = nil
            switch batch.lines[index] {
            case .text(let range):
                bytes = range
            case .oversized:
                // Not made by the splitting reader; counted all the same.
                enterRun(taggedInput ? .unknown : .file(file))
                discarded.append(
                    AuditDiscard(
                        reason: .unbrokenRun, origin: taggedInput ? .tag(nil) : .line(file: file, number: lineNumber)))
                noteDiscards()
                continue
            case .piece(let range, let piece):
                bytes = range
                offset = piece.offset
                if piece.offset > 0 { head = piece.head }
            }
            var origin = AuditOrigin.line(file: file, number: lineNumber)
            // Columns count from the text; a piece's from its line's.
            var columnShift = offset
            if taggedInput {
                if let head {
                    let tab = head.firstIndex(of: UInt8(ascii: "\t"))
                    origin = .tag(tab.map { String(decoding: head[..<$0], as: UTF8.self) })
                    if let tab { columnShift -= tab + 1 }
                } else {
                    let tab = batch.storage[bytes].firstIndex(of: UInt8(ascii: "\t"))
                    origin = .tag(tab.map { String(decoding: batch.storage[bytes.lowerBound..<$0], as: UTF8.self) })
                    if let tab { bytes = (tab + 1)..<bytes.upperBound }
                }
            }
            if case .tag(let tag) = origin { enterRun(AuditRun.Place(tag: tag)) } else { enterRun(.file(file)) }
            if case .piece(_, let piece) = batch.lines[index], piece.forcedCut {
                discarded.append(AuditDiscard(reason: .unbrokenRun, origin: origin))
            }
            batch.storage.withUnsafeBytes { storage in
                TokenExtractor.scan(UnsafeRawBufferPointer(rebasing: storage[bytes]), headers: &headers) { found in
                    pending.append(
                        Pending(origin: origin, found: found, line: bytes.lowerBound, columnShift: columnShift))
                } discarded: { reason in
                    discarded.append(AuditDiscard(reason: reason, origin: origin))
                }
            }
            if partials {
                noteDiscards()
                noteTokens()
            }
        }
        var text = OutputText()
        var values: [AuditRecord] = []
        var proofs: [(position: Int, proof: AuditProof)] = []
        var positions: [Int] = []
        let counts = evaluate(pending, in: batch, text: &text, records: &values, at: &positions, proofs: &proofs)
        guard records != nil else {
            return .evaluated(records: values, proofs: proofs.map(\.proof), discarded: discarded)
        }
        let unread = discarded.count { $0.reason == .unbrokenRun }
        var partial: [AuditRun]? = nil
        if partials {
            var runs = lineRuns
            for (record, position) in zip(values, positions) { runs[recordRuns[position]].records.append(record) }
            for (position, proof) in proofs { runs[recordRuns[position]].proofs.append(proof) }
            for (discard, run) in zip(discarded, discardRuns) { runs[run].discarded.append(discard) }
            partial = runs
        }
        guard showsDiscards, !discarded.isEmpty else {
            return .lines(
                text.finish(), tokens: counts.tokens, valid: counts.valid, proofs: counts.proofs,
                validProofs: counts.validProofs, unread: unread, partial: partial)
        }
        var discards = OutputText()
        let columnCount = AuditRecord.columns(tagged: taggedInput, showTokens: showsTokens).count
        for discard in discarded {
            if records == .tsv {
                discard.appendCells(to: &discards, columns: columnCount)
            } else {
                discard.appendJSON(to: &discards)
            }
        }
        discards.appendRaw(text.bytes)
        return .lines(
            discards.finish(), tokens: counts.tokens, valid: counts.valid, proofs: counts.proofs,
            validProofs: counts.validProofs, unread: unread, partial: partial)
    }

    /// `pending`, whose bytes are in `batch`, through the verifier's pipeline as one batch, in
    /// order: each record appended to `text` (records written) or to `records` (a report), or
    /// both (`--partials`), its position in `pending` to `positions`. DPoP proofs
    /// (``AuditTokenKind``) do not go through the pipeline: each is judged by ``DPoPProofForm`` and
    /// its record written in its place among the others (jsonl; a tsv row has a token's columns,
    /// so there a proof is only counted), and it is appended to `proofs` with its position (a
    /// report, `--partials`). Returns the tokens and proofs written and how many of each were valid.
    private func evaluate(
        _ pending: [Pending], in batch: LineBatch, text: inout OutputText, records values: inout [AuditRecord],
        at valuePositions: inout [Int], proofs: inout [(position: Int, proof: AuditProof)]
    ) -> (tokens: Int, valid: Int, proofs: Int, validProofs: Int) {
        var tokens = 0
        var valid = 0
        var proofCount = 0
        var validProofs = 0
        if records != nil { text.reserveCapacity(pending.count * 1024) }  // a record is 700-900 octets
        let keepsTokens = records != nil && showsTokens
        let nonce = nonce.map { Array($0.utf8) }
        let policy = verifier.policy
        batch.storage.withUnsafeBytes { storage in
            var found = TokenBatch(minimumCapacity: pending.count, bytes: pending.count * 1024)
            // Each token of the batch's position in `pending`, its kind and binding; the proofs in order.
            var positions: [Int] = []
            var kinds: [(AuditTokenKind, String?)] = []
            var lineProofs: [(position: Int, proof: AuditProof)] = []
            // The thumbprints of the valid proofs on each line, by where the line starts.
            var provenKeys: [Int: [String]] = [:]
            for (position, token) in pending.enumerated() {
                token.found.token.withBytes(in: UnsafeRawBufferPointer(rebasing: storage[token.line...])) { bytes in
                    let kind = AuditTokenKind.of(bytes)
                    if kind == .dpopProof {
                        let proof = AuditProof(
                            origin: token.origin, column: token.found.column + token.columnShift,
                            place: token.found.place, bytes: bytes, keepingToken: keepsTokens, policy: policy)
                        if proof.valid, let thumbprint = proof.form.thumbprint {
                            provenKeys[token.line, default: []].append(thumbprint)
                        }
                        lineProofs.append((position, proof))
                        return
                    }
                    positions.append(position)
                    kinds.append((kind, kind == .accessToken ? AuditTokenKind.boundThumbprint(bytes) : nil))
                    guard let nonce else { return found.append(bytes: bytes, nonce: nil) }
                    nonce.withUnsafeBytes { found.append(bytes: bytes, nonce: $0) }
                }
            }
            var nextProof = 0
            func writeProofs(before position: Int) {
                while nextProof < lineProofs.count, lineProofs[nextProof].position < position {
                    let proof = lineProofs[nextProof].proof
                    if records == nil || partials { proofs.append(lineProofs[nextProof]) }
                    nextProof += 1
                    guard records != nil else { continue }
                    // A tsv row has a token's columns: a proof is counted (and in the partials) only.
                    if records == .jsonl { proof.appendJSON(to: &text) }
                    proofCount += 1
                    if proof.valid { validProofs += 1 }
                }
            }
            verifier.evaluate(found, at: time, tracing: true, fingerprints: true) { index, token, result, trace in
                let at = pending[positions[index]]
                writeProofs(before: positions[index])
                let (kind, boundKey) = kinds[index]
                let proven =
                    boundKey.map { key in
                        provenKeys[at.line]?.contains { Array($0.utf8) == Array(key.utf8) } ?? false
                    } ?? false
                let outcome = VerificationOutcome(result, trace: trace, token: token, verifier: verifier, time: time)
                let keySource = outcome.verified ? outcome.keyID.flatMap { keySources[ExactBytes($0)] } : nil
                let record = AuditRecord(
                    origin: at.origin, column: at.found.column + at.columnShift, place: at.found.place,
                    token: token, keepingToken: keepsTokens, outcome: outcome, keySource: keySource,
                    allowList: policy.algorithms, kind: kind, boundKey: boundKey, proofOnLine: proven)
                switch records {
                case nil:
                    values.append(record)
                    valuePositions.append(positions[index])
                    return
                case .tsv: record.appendCells(to: &text)
                case .jsonl: record.appendJSON(to: &text, rules: policy.rules)
                }
                tokens += 1
                if record.outcome.verified { valid += 1 }
                if partials {
                    values.append(record)
                    valuePositions.append(positions[index])
                }
            }
            writeProofs(before: pending.count)
        }
        return (tokens, valid, proofCount, validProofs)
    }
}
