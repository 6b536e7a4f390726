package import JWTVerify

/// `audit`'s engine: finds every token in lines of text, evaluates them through the verifier's
/// batch pipeline, and writes a record per token (jsonl, tsv) or gathers them into a report;
/// with ``partials``, also a partial report per run of input (a file, or consecutive tagged
/// lines). The command only opens inputs and outputs, shows progress and picks the exit status.
///
/// Lines are read in batches by ``BatchRunner`` and each worker's range of lines goes to the
/// pipeline as one ``TokenBatch``: the pipeline cuts its own stages.
package struct AuditEngine: Sendable {
    /// The per-token records written, when the run writes records rather than a report.
    package enum Records: Sendable {
        /// One JSON object per line.
        case jsonl
        /// Tab-separated rows under a header, without provider claims.
        case tsv
    }

    /// The longest piece of a line (or tagged line's text) scanned at once: longer lines are read
    /// in pieces cut at a byte no token or escape can hold (``TokenExtractor/isSeparator(_:)``),
    /// so a line of any length is read whole in bounded memory.
    package static let lineLimit = 4 << 20
    /// Room for the tag of a tagged line, on top of ``lineLimit``.
    package static let tagLimit = 4096

    /// The verifier every token goes through.
    package var verifier: Verifier
    /// When tokens are evaluated.
    package var time: EvaluationTime
    /// The raw nonce checked for every token (`--nonce`), if any.
    package var nonce: String?
    /// Which key source (a `--jwks` operand) holds each `kid`, by the kid's exact bytes.
    package var keySources: [ExactBytes: String] = [:]
    /// The records written, or `nil` for a report.
    package var records: Records?
    /// How the report (and each partial) states its conditions.
    package var conditions = AuditConditions()
    /// A report that keeps each distinct token (`--format partial`, for merging).
    package var keepsDistinctTokens = false
    /// Records carry the raw token (`--show-tokens`).
    package var showsTokens = false
    /// Records are written for discarded fragments too (`--discards`).
    package var showsDiscards = false
    /// Each line is `TAG<TAB>TEXT` (`--tagged-input`).
    package var taggedInput = false
    /// Beside the records, a partial report per run of input (`--partials`).
    package var partials = false
    /// The partials hold counts only; repeats are reduced from the records (`--reduced-repeats`).
    package var reducedRepeats = false
    /// The whole input's files in order, when this run is one task of a job (`--listing`).
    package var listing: AuditListing?
    /// Verifying threads.
    package var threads = 1

    /// An engine over `verifier`, evaluating at `time`; the rest as its properties say.
    package init(verifier: Verifier, time: EvaluationTime) {
        self.verifier = verifier
        self.time = time
    }

    /// Reads `inputs` in turn and hands each piece of output to `write`, in input order: the
    /// header (tsv), the records, partial lines and combined repeats. `write` returns false once
    /// the output failed, and the run then stops. `progress` hears the tokens found and the input
    /// bytes read so far after each piece. Returns the report of the whole run (for records, its
    /// counts only).
    package func run(
        _ inputs: [BatchInput], write: (FinishedOutputText) -> Bool, progress: (_ tokens: Int, _ bytes: Int) -> Void
    ) throws(BatchRunner.ReadFailure) -> AuditReport {
        if records == .tsv {
            var header = OutputText()
            header.headerRow(AuditRecord.columns(tagged: taggedInput, showTokens: showsTokens))
            _ = write(header.finish())
        }
        var report = AuditReport()
        report.conditions = conditions
        report.keepsPlaces = records == nil
        report.keepsDistinctTokens = keepsDistinctTokens
        // The same report, one per run of input, beside the records.
        var filePartial = report
        filePartial.keepsPlaces = true
        filePartial.keepsDistinctTokens = !reducedRepeats
        filePartial.tracksRepeats = !reducedRepeats
        let emptyPartial = filePartial
        var combiner = reducedRepeats ? listing.map(AuditRepeatCombiner.init) : nil
        var partialRun: AuditRun? = nil
        var healthy = true
        func emit(_ text: FinishedOutputText) { healthy = write(text) && healthy }
        func finishPartial() {
            guard let run = partialRun else { return }
            emit(run.partialLine(filePartial))
            filePartial = emptyPartial
            partialRun = nil
        }
        let runner = BatchRunner(
            threads: threads, lineLimit: Self.lineLimit + (taggedInput ? Self.tagLimit : 0),
            longLines: .split(
                isSeparator: TokenExtractor.isSeparator, searchBytes: Self.lineLimit, headBytes: Self.tagLimit))
        let engine = self
        try runner.run(inputs) { batch, range, input in
            engine.evaluate(batch, range, file: input.name)
        } consume: { part, bytesRead in
            switch part {
            case .lines(let text, let tokens, let valid, let proofs, let validProofs, let unread, let partial):
                report.count(tokens: tokens, valid: valid)
                report.countProofs(proofs, valid: validProofs)
                for _ in 0..<unread { report.discard(.unbrokenRun) }
                emit(text)
                for run in partial ?? [] {
                    if let current = partialRun, current.end.isContinued(by: run.start) {
                        partialRun?.end = run.end
                    } else {
                        finishPartial()
                        partialRun = AuditRun(at: run.start)
                        partialRun?.end = run.end
                    }
                    for discard in run.discarded { filePartial.discard(discard.reason) }
                    for proof in run.proofs { filePartial.add(listing.map { proof.named(by: $0) } ?? proof) }
                    for record in run.records {
                        filePartial.add(listing.map { record.named(by: $0) } ?? record)
                        if let handed = combiner?.add(record) { emit(handed) }
                    }
                }
            case .evaluated(let records, let proofs, let discarded):
                for discard in discarded { report.discard(discard.reason) }
                for record in records { report.add(record) }
                for proof in proofs { report.add(proof) }
            }
            progress(report.tokens, bytesRead)
            return healthy
        }
        if partials { finishPartial() }
        if var combiner { emit(combiner.flush()) }
        return report
    }
}
