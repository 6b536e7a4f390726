extension RemoteVerifier {
    /// Verifies every token of `batch` with the current keys (``Verifier/verify(_:at:)``); when
    /// some tokens name a `kid` the keys lack, waits up to ``refreshWait`` for at most one
    /// rate-limited refresh (the same one ``verify(_:nonce:at:)`` waits for) and verifies those
    /// tokens again with the new keys; those tokens are `jwks_unavailable` when the refresh is
    /// still running then. Every token is `jwks_unavailable` when no keys can be had at all.
    ///
    /// - Parameters:
    ///   - batch: the tokens, each with its raw nonce or none.
    ///   - time: evaluate at this time (seconds since the epoch) instead of the policy's clock.
    /// - Returns: per token, in order, the verified token or the first failing check's error.
    public func verify(_ batch: TokenBatch, at time: Double? = nil) async -> [Result<VerifiedToken, VerificationError>]
    {
        if keySet.currentKeysAndGeneration().keys == nil { await keySet.load() }
        var results = verifyWithoutWaiting(batch, at: time)
        let unknown = results.indices.filter { index in
            if case .failure(let error) = results[index] { Self.namesUnknownKey(error) } else { false }
        }
        guard let first = unknown.first, case .failure(let error) = results[first] else { return results }
        do {
            try await waitForRefresh(after: error)
        } catch  where error.reason == .keySetUnavailable {
            for index in unknown { results[index] = .failure(error) }
            return results
        } catch {
            return results
        }
        var again = TokenBatch()
        for index in unknown { again.append(batch.token(at: index), nonce: batch.nonce(at: index)) }
        for (position, result) in verifyWithoutWaiting(again, at: time).enumerated() {
            results[unknown[position]] = result
        }
        return results
    }

    /// Verifies every token of `batch` with the keys at hand, never waiting on the network; every
    /// token is `jwks_unavailable` while there are none.
    public func verifyWithoutWaiting(_ batch: TokenBatch, at time: Double? = nil) -> [Result<
        VerifiedToken, VerificationError
    >] {
        do {
            return try currentVerifier().verify(batch, at: time)
        } catch {
            return Array(repeating: .failure(error), count: batch.count)
        }
    }
}
