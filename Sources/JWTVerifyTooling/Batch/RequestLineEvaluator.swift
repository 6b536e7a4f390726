package import JWTVerify

/// Input lines of `verify` (and of a `serve` `/verify` body) through the verifier's batch
/// pipeline: each line — a bare compact token or a JSON request — is parsed once, its token
/// (taken by ``TokenInput``'s rule: whitespace and a `Bearer` scheme around it removed) and nonce
/// go into a ``TokenBatch``, and each verdict is written as one record, in the lines' order.
/// Lines without a usable request get their record in place; blank lines get none and are
/// counted as blank.
package struct RequestLineEvaluator: Sendable {
    /// The verifier every line goes through.
    package let verifier: Verifier
    /// The raw nonce for lines without their own (`--nonce`).
    package let defaultNonce: String?
    /// When tokens are evaluated.
    package let time: EvaluationTime

    package init(verifier: Verifier, defaultNonce: String?, time: EvaluationTime) {
        self.verifier = verifier
        self.defaultNonce = defaultNonce
        self.time = time
    }

    /// One input line as a face hands it over.
    package enum Line {
        /// The line's bytes (without its newline).
        case text(UnsafeRawBufferPointer)
        /// A line that holds no request, with the reason its record gives.
        case unusable(VerificationError)
    }

    /// What a line became: a token in the batch, or a record written without one.
    private enum Entry {
        case token(number: Int, idJSON: String?)
        /// A token whose line has a DPoP proof: its place among `proofs`.
        case tokenWithProof(number: Int, idJSON: String?)
        case unusable(number: Int, error: VerificationError, idJSON: String?)
        case blank
    }

    /// Evaluates `count` lines (`line(i)` gives the i-th with its 1-based number), appending one
    /// record per line in order; returns their tally. The lines' tokens go to the verifier as one
    /// batch: the pipeline cuts it into stages.
    package func evaluate(
        count: Int, file: String?, into out: inout OutputText, _ line: (Int) -> (number: Int, line: Line)
    ) -> Tally {
        var tally = Tally()
        // Room for every line's bytes at once (a token is at most its line): growing the batch's
        // storage line by line would copy it over and over.
        var bytes = 0
        for index in 0..<count { if case .text(let text) = line(index).line { bytes += text.count } }
        var batch = TokenBatch(minimumCapacity: count, bytes: bytes)
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        // The lines' DPoP requests by batch position; empty while no line has one.
        var proofs: [DPoPRequest?] = []
        for index in 0..<count {
            let (number, input) = line(index)
            switch input {
            case .unusable(let error): entries.append(.unusable(number: number, error: error, idJSON: nil))
            case .text(let text): entries.append(add(text, number: number, to: &batch, proofs: &proofs))
            }
        }
        write(entries, batch, proofs: proofs, file: file, into: &out, tally: &tally)
        return tally
    }

    /// Parses `line` once (``TokenRequest/withLine(_:_:)``): its token and nonce go into `batch`.
    private func add(
        _ line: UnsafeRawBufferPointer, number: Int, to batch: inout TokenBatch, proofs: inout [DPoPRequest?]
    ) -> Entry {
        TokenRequest.withLine(line) { content -> Entry in
            switch content {
            case .blank:
                return .blank
            case .problem(let problem):
                return .unusable(
                    number: number, error: VerificationError(.malformed, detail: problem.description),
                    idJSON: problem.idJSON)
            case .request(let request):
                withNonce(request.nonce) { batch.append(bytes: request.token, nonce: $0) }
                guard let dpop = request.dpop else { return .token(number: number, idJSON: request.idJSON) }
                if proofs.count < batch.count - 1 {
                    proofs += repeatElement(nil, count: batch.count - 1 - proofs.count)
                }
                proofs.append(dpop)
                return .tokenWithProof(number: number, idJSON: request.idJSON)
            }
        }
    }

    /// The batch through the pipeline, and every entry's record in order.
    private func write(
        _ entries: [Entry], _ batch: TokenBatch, proofs: [DPoPRequest?], file: String?, into out: inout OutputText,
        tally: inout Tally
    ) {
        let rules = verifier.policy.rules
        var cursor = 0
        let lineProofs: ((Int) -> DPoPRequest?)? =
            proofs.isEmpty ? nil : { index in index < proofs.count ? proofs[index] : nil }
        // The state the verdicts advance is passed down as `inout`, not captured by a nested
        // function: a variable a nested function captures is checked for exclusive access at
        // run time on every use.
        verifier.evaluate(batch, at: time, tracing: true, proofs: lineProofs) { _, token, result, trace in
            writeUnusable(entries, upTo: entries.count, cursor: &cursor, file: file, into: &out, tally: &tally)
            let number: Int
            let idJSON: String?
            switch entries[cursor] {
            case .token(let line, let id), .tokenWithProof(let line, let id): (number, idJSON) = (line, id)
            default: preconditionFailure("a verdict without its line")
            }
            cursor += 1
            let reason: VerificationError.Reason? = if case .failure(let error) = result { error.reason } else { nil }
            let outcome = VerificationOutcome(result, trace: trace, token: token, verifier: verifier, time: time)
            TokenRecordWriter.appendLineRecord(
                to: &out, line: number, file: file, idJSON: idJSON, outcome: outcome, rules: rules)
            tally.count(reason)
        }
        writeUnusable(entries, upTo: entries.count, cursor: &cursor, file: file, into: &out, tally: &tally)
    }

    /// Writes the records of the blank and unusable lines from `cursor` on, up to the next token
    /// or `limit`.
    private func writeUnusable(
        _ entries: [Entry], upTo limit: Int, cursor: inout Int, file: String?, into out: inout OutputText,
        tally: inout Tally
    ) {
        while cursor < limit {
            switch entries[cursor] {
            case .unusable(let number, let error, let idJSON):
                tally.count(unusable(error, number: number, file: file, idJSON: idJSON, into: &out))
            case .blank: tally.blank += 1
            case .token, .tokenWithProof: return
            }
            cursor += 1
        }
    }

    /// Appends the record of a line that held no usable token request.
    @discardableResult
    package func unusable(
        _ error: VerificationError, number: Int, file: String?, idJSON: String?, into out: inout OutputText
    ) -> VerificationError.Reason {
        TokenRecordWriter.appendLineRecord(
            to: &out, line: number, file: file, idJSON: idJSON, outcome: VerificationOutcome(.failure(error)),
            rules: .none)
        return error.reason
    }

    private func withNonce<R>(_ own: UnsafeRawBufferPointer?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        if let own { return body(own) }
        guard var nonce = defaultNonce else { return body(nil) }
        return nonce.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
