package import JWTVerify

/// One input line of `verify` (and of a `serve` `/verify` body) through the verifier: a bare
/// compact token (a trailing CR removed) or a JSON request, evaluated and written as one record.
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

    /// Evaluates `line` and appends its record; returns the verdict's reason (`nil`: valid).
    @discardableResult
    package func evaluate(
        _ line: UnsafeRawBufferPointer, number: Int, file: String?, into out: inout OutputText
    ) -> VerificationError.Reason? {
        let rules = verifier.policy.rules
        if line.first == UInt8(ascii: "{") {
            return TokenRequest.withParsed(jsonLine: line) { parsed -> VerificationError.Reason? in
                switch parsed {
                case .success(let request):
                    let outcome = withNonce(request.nonce) { verifier.outcome(request.token, rawNonce: $0, at: time) }
                    TokenRecordWriter.appendLineRecord(to: &out, line: number, file: file, idJSON: request.idJSON, outcome: outcome, rules: rules)
                    return outcome.error?.reason
                case .failure(let problem):
                    return unusable(VerificationError(.malformed, detail: problem.description), number: number, file: file, idJSON: problem.idJSON, into: &out)
                }
            }
        }
        var token = line
        if token.last == UInt8(ascii: "\r") { token = UnsafeRawBufferPointer(rebasing: token.dropLast()) }
        if token.isEmpty {
            return unusable(VerificationError(.malformed, detail: "empty line"), number: number, file: file, idJSON: nil, into: &out)
        }
        let outcome = withNonce(nil) { verifier.outcome(token, rawNonce: $0, at: time) }
        TokenRecordWriter.appendLineRecord(to: &out, line: number, file: file, idJSON: nil, outcome: outcome, rules: rules)
        return outcome.error?.reason
    }

    /// Adds the token `line` holds to `batch`, for ``Verifier/withPresolvedSignatures(_:_:)``
    /// around ``evaluate(_:number:file:into:)`` of the same lines.
    package func addToken(of line: UnsafeRawBufferPointer, to batch: inout SignatureBatch) {
        if line.first == UInt8(ascii: "{") {
            TokenRequest.withParsed(jsonLine: line) { parsed in
                if case .success(let request) = parsed { batch.add(request.token) }
            }
            return
        }
        var token = line
        if token.last == UInt8(ascii: "\r") { token = UnsafeRawBufferPointer(rebasing: token.dropLast()) }
        batch.add(token)
    }

    /// Appends the record of a line that held no usable token request.
    @discardableResult
    package func unusable(
        _ error: VerificationError, number: Int, file: String?, idJSON: String?, into out: inout OutputText
    ) -> VerificationError.Reason {
        TokenRecordWriter.appendLineRecord(
            to: &out, line: number, file: file, idJSON: idJSON, outcome: VerificationOutcome(.failure(error)), rules: .none)
        return error.reason
    }

    private func withNonce<R>(_ own: UnsafeRawBufferPointer?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        if let own { return body(own) }
        guard var nonce = defaultNonce else { return body(nil) }
        return nonce.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
