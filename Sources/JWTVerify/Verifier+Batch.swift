extension Verifier {
    /// Verifies every token of `batch` and returns one result per token, in the batch's order.
    ///
    /// The same checks, order and reasons as ``verify(_:nonce:at:)-(String,_,_)`` for each token;
    /// what the batch adds is speed: each token is prepared once, then the signatures of up to
    /// 128 tokens are checked together (ES256 with one modular inversion for all), then the rest
    /// of each token's checks run. A bad token never changes another's verdict. Call it from any
    /// number of threads, each with batches of its own.
    ///
    /// - Parameters:
    ///   - batch: the tokens, each with its raw nonce or none.
    ///   - time: evaluate at this time (seconds since the epoch) instead of the policy's clock.
    /// - Returns: per token, the verified token or the first failing check's error.
    public func verify(_ batch: TokenBatch, at time: Double? = nil) -> [Result<VerifiedToken, VerificationError>] {
        var results: [Result<VerifiedToken, VerificationError>] = []
        results.reserveCapacity(batch.count)
        evaluate(batch, at: time.map(EvaluationTime.fixed) ?? .clock, tracing: false) { _, _, result, _ in
            results.append(result)
        }
        return results
    }

    /// Verifies every token of `batch` like ``verify(_:at:)``, handing each result to `body` as it
    /// is decided, in order, instead of collecting them.
    ///
    /// - Parameters:
    ///   - batch: the tokens, each with its raw nonce or none.
    ///   - time: evaluate at this time (seconds since the epoch) instead of the policy's clock.
    ///   - body: called once per token with its position in `batch` and its result.
    public func verify(
        _ batch: TokenBatch, at time: Double? = nil, each body: (Int, Result<VerifiedToken, VerificationError>) -> Void
    ) {
        evaluate(batch, at: time.map(EvaluationTime.fixed) ?? .clock, tracing: false) { index, _, result, _ in
            body(index, result)
        }
    }
}
