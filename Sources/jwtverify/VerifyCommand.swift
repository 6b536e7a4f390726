import JWTVerify
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `jwtverify verify`: verifies one token per input line on all cores and prints results in order.
struct VerifyCommand {
    let options: VerifyOptions

    func run() throws(CommandFailure) -> ExitStatus {
        let keys = try options.keySets.keys(for: options.flags)
        let evaluator = RequestLineEvaluator(
            verifier: Verifier(keys: keys, policy: options.policy, cache: options.cache),
            defaultNonce: options.flags.nonce,
            time: options.flags.evaluationTime)
        let inputs = try InputFile.openAll(options.inputs)
        defer { for input in inputs { input.close() } }
        let output = OutputSink(writeBehind: true)
        var tally = Tally()
        let named = inputs.count > 1
        let progress = ProgressLine(totalBytes: ProgressLine.totalSize(of: inputs))
        // Proofs are judged in input order (one thread), so the first of two equal proofs is the
        // one accepted and the second the one refused, whatever --threads says.
        let threads = options.policy.dpop.mode == .off ? options.threads : 1
        let runner = BatchRunner(threads: threads, lineLimit: options.policy.maxTokenBytes * 6 + (1 << 20))
        do {
            try runner.run(inputs.map { BatchInput(name: $0.name, fd: $0.fd) }) { batch, range, input in
                Self.verify(batch, range, file: named ? input.name : nil, with: evaluator)
            } consume: { part, bytesRead in
                output.write(part.output)
                tally.add(part.tally)
                progress.update(tokens: tally.total, bytes: bytesRead)
                return output.failure == nil
            }
        } catch {
            output.flush()
            throw CommandFailure(
                status: .ioError, message: "cannot read \(error.input): \(String(cString: strerror(error.code)))")
        }
        output.flush()
        progress.finish()
        if let failure = output.failure {
            throw CommandFailure(
                status: .ioError, message: "cannot write output: \(String(cString: strerror(failure)))")
        }
        StandardError.write(tally.summary)
        if let counters = evaluator.verifier.cache?.counters { StandardError.write(Self.cacheSummary(counters)) }
        return tally.rejected == 0 ? .ok : .rejected
    }

    /// `  cache: 98 hits, 2 misses, ...` for the summary on stderr.
    static func cacheSummary(_ counters: VerifiedTokenCache.Counters) -> String {
        "  cache: \(counters.hits) hits, \(counters.misses) misses, \(counters.insertions) insertions, "
            + "\(counters.evictions) evictions, \(counters.invalidations) invalidations\n"
    }

    /// A chunk of a batch: its records and its tally.
    struct Part: Sendable {
        let output: FinishedOutputText
        let tally: Tally
    }

    private static func verify(
        _ batch: LineBatch, _ range: Range<Int>, file: String?, with evaluator: RequestLineEvaluator
    ) -> Part {
        var text = OutputText()
        text.reserveCapacity(range.count * 384)  // a typical record is 300-350 octets
        let tally = batch.storage.withUnsafeBytes { storage in
            evaluator.evaluate(count: range.count, file: file, into: &text) { offset in
                let index = range.lowerBound + offset
                let line: RequestLineEvaluator.Line =
                    switch batch.lines[index] {
                    case .oversized(let length):
                        .unusable(
                            VerificationError(
                                .tooLarge, detail: "input line of \(length) octets is longer than the line limit"))
                    case .piece:
                        // verify's reader discards long lines; it never splits them.
                        .unusable(VerificationError(.tooLarge, detail: "input line is longer than the line limit"))
                    case .text(let lineRange): .text(UnsafeRawBufferPointer(rebasing: storage[lineRange]))
                    }
                return (batch.lineNumber(at: index), line)
            }
        }
        return Part(output: text.finish(), tally: tally)
    }
}
