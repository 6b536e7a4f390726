import JWTVerify
import JWTVerifyTooling

extension VerifyBody {
    /// Evaluates every request of `body` on a route with several issuers: each line goes to the
    /// issuer entry its token's unverified `iss` names (``ServeRoute/entry(for:)``), runs of lines
    /// for the same entry as one batch through its pipeline, and the records come out in the
    /// lines' order. A token no entry accepts gets its `issuer_mismatch` record in place; lines
    /// without a token (blank, not a request) go with the run they stand in. `jwks_unavailable`
    /// while an entry with lines has no keys, as for one issuer.
    static func evaluate(_ body: [UInt8], byIssuer route: ServeRoute, probe: KeyWaitProbe)
        -> Result<Result<Records, Problem>, VerificationError>
    {
        body.withUnsafeBytes { bytes in
            let lines: [Range<Int>]
            switch requests(bytes) {
            case .failure(let problem): return .success(.failure(problem))
            case .success(let found): lines = found
            }
            func line(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[lines[index]]) }
            // Each line's entry (nil: no token to read), or the refusal of a token no entry accepts.
            var entries: [ServeRoute?] = []
            var refusals: [Int: VerificationError] = [:]
            for index in lines.indices {
                let entry = TokenRequest.withLine(line(index)) { content -> ServeRoute? in
                    guard case .request(let request) = content else { return nil }
                    if let entry = route.entry(for: request.token) { return entry }
                    refusals[index] = route.noIssuerEntry(for: request.token)
                    return nil
                }
                entries.append(entry)
            }
            // Lines without an entry of their own go with the run they stand in (the first entry's at the start).
            var current = entries.compactMap { $0 }.first ?? route.issuerEntries[0]
            for index in entries.indices {
                if let entry = entries[index] { current = entry } else { entries[index] = current }
            }
            var text = OutputText()
            text.reserveCapacity(lines.count * 384)
            var tally = Tally()
            var start = 0
            while start < lines.count {
                let entry = entries[start]!
                var end = start + 1
                while end < lines.count, entries[end]! === entry { end += 1 }
                let outcome = entry.withVerifier(probe: probe, namesUnknownKey: { $0 }) { verifier -> Bool in
                    let evaluator = RequestLineEvaluator(
                        verifier: verifier, defaultNonce: route.configuration.nonce, time: route.configuration.time)
                    let run = evaluator.evaluate(count: end - start, file: nil, into: &text) { offset in
                        let index = start + offset
                        return (index + 1, refusals[index].map { .unusable($0) } ?? .text(line(index)))
                    }
                    tally.add(run)
                    return run.byReason.keys.contains {
                        RemoteVerifier.namesUnknownKey(VerificationError.Reason(rawValue: $0))
                    }
                }
                if case .failure(let error) = outcome { return .failure(error) }
                start = end
            }
            return .success(.success(Records(output: text.bytes, tally: tally)))
        }
    }
}
