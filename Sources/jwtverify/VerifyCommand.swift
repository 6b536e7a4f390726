import Dispatch
import JWTVerify

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `jwtverify verify`: verifies one token per input line on all cores and prints results in order.
struct VerifyCommand {
    let options: VerifyOptions

    /// Lines per round of parallel work, and the input bytes a round may hold.
    static let batchLines = 4096
    static let batchBytes = 8 << 20

    func run() throws(CommandFailure) -> ExitStatus {
        let keys = try KeySetLoader.load(options.keySets)
        let verifier = Verifier(
            keys: keys, issuer: options.issuer ?? "", audiences: options.audiences, algorithms: options.algorithms,
            leeway: options.leeway, maxTokenBytes: options.maxTokenBytes)
        let profileVerifier = options.profile.map {
            ProfileVerifier(profile: $0, keys: keys, audiences: options.audiences, leeway: options.leeway, maxTokenBytes: options.maxTokenBytes)
        }
        let inputs = try InputFile.openAll(options.inputs)
        let output = OutputSink()
        var tally = Tally()
        let named = inputs.count > 1
        let progress = ProgressLine(totalBytes: ProgressLine.totalSize(of: inputs))
        var bytesBefore = 0
        for input in inputs {
            defer { input.close() }
            let reader = LineReader(fd: input.fd, lineLimit: options.maxTokenBytes * 6 + (1 << 20))
            while true {
                let batch: LineBatch?
                do {
                    batch = try reader.nextBatch(maxLines: Self.batchLines, maxBytes: Self.batchBytes)
                } catch {
                    output.flush()
                    throw CommandFailure(status: .ioError, message: "cannot read \(input.name): \(String(cString: strerror(error.code)))")
                }
                guard let batch else { break }
                let round = verify(batch, with: LineVerifier(generic: verifier, profile: profileVerifier), file: named ? input.name : nil)
                for part in round.outputs { output.write(part) }
                tally.add(round.tally)
                progress.update(tokens: tally.total, bytes: bytesBefore + reader.bytesRead)
                if output.failure != nil { break }
            }
            bytesBefore += reader.bytesRead
        }
        output.flush()
        progress.finish()
        if let failure = output.failure {
            throw CommandFailure(status: .ioError, message: "cannot write output: \(String(cString: strerror(failure)))")
        }
        StandardError.write(tally.summary)
        return tally.rejected == 0 ? .ok : .rejected
    }

    /// One round: the batch's lines split into contiguous chunks, verified concurrently, and the
    /// chunks' output returned in input order.
    private func verify(_ batch: LineBatch, with verifier: LineVerifier, file: String?) -> (outputs: [[UInt8]], tally: Tally) {
        let lineCount = batch.lines.count
        let chunkCount = min(lineCount, options.threads == 1 ? 1 : options.threads * 4)
        let results = ChunkResults(count: chunkCount)
        let work: @Sendable (Int) -> Void = { chunk in
            let lower = chunk * lineCount / chunkCount
            let upper = (chunk + 1) * lineCount / chunkCount
            var text = JSONText()
            var tally = Tally()
            for index in lower..<upper {
                verifyLine(
                    batch, index: index, number: batch.firstLineNumber + index, verifier: verifier, file: file,
                    into: &text, tally: &tally)
            }
            results.store(chunk, output: text.bytes, tally: tally)
        }
        if chunkCount == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: chunkCount, execute: work)
        }
        return results.collect()
    }

    private func verifyLine(
        _ batch: LineBatch, index: Int, number: Int, verifier: LineVerifier, file: String?,
        into text: inout JSONText, tally: inout Tally
    ) {
        switch batch.lines[index] {
        case .oversized(let length):
            let error = VerificationError(.tooLarge, detail: "input line of \(length) octets is longer than the line limit")
            TokenReport.appendUnusableLine(to: &text, line: number, file: file, idJSON: nil, reason: error)
            tally.count(error.reason)
        case .text(let range):
            batch.storage.withUnsafeBytes { storage in
                var line = UnsafeRawBufferPointer(rebasing: storage[range])
                if line.first == UInt8(ascii: "{") {
                    switch TokenRequest.parse(jsonLine: line) {
                    case .success(let request):
                        request.token.withUnsafeBytes { token in
                            let (result, profiled) = verifier.evaluate(token, nonce: request.nonce ?? options.nonce, at: options.now)
                            TokenReport.append(
                                to: &text, line: number, file: file, idJSON: request.idJSON, token: token, result: result,
                                peekLimit: options.maxTokenBytes, profile: profiled)
                            tally.count(result)
                        }
                    case .failure(let problem):
                        let error = VerificationError(.malformed, detail: problem.description)
                        TokenReport.appendUnusableLine(to: &text, line: number, file: file, idJSON: problem.idJSON, reason: error)
                        tally.count(error.reason)
                    }
                    return
                }
                if line.last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
                let (result, profiled): (Result<VerifiedToken, VerificationError>, ProfileToken?) =
                    line.isEmpty
                    ? (.failure(VerificationError(.malformed, detail: "empty line")), nil)
                    : verifier.evaluate(line, nonce: options.nonce, at: options.now)
                TokenReport.append(
                    to: &text, line: number, file: file, idJSON: nil, token: line, result: result,
                    peekLimit: options.maxTokenBytes, profile: profiled)
                tally.count(result)
            }
        }
    }
}

/// The generic verifier, or a profile's, behind one call.
struct LineVerifier: Sendable {
    let generic: Verifier
    let profile: ProfileVerifier?

    func evaluate(_ token: UnsafeRawBufferPointer, nonce: String?, at time: Double?) -> (Result<VerifiedToken, VerificationError>, ProfileToken?) {
        guard let profile else { return (generic.evaluate(token, nonce: nonce, at: time), nil) }
        guard let text = String(validating: token, as: UTF8.self) else {
            return (.failure(VerificationError(.malformed, detail: "the token is not valid UTF-8")), nil)
        }
        do {
            let verified = try profile.verify(text, nonce: nonce, at: time)
            return (.success(verified.token), verified)
        } catch {
            return (.failure(error), nil)
        }
    }
}

/// Per-chunk results written by concurrent workers, each to its own slot.
private final class ChunkResults: @unchecked Sendable {
    // Safety: every worker writes only slot `chunk`, and `collect` runs after all workers finished.
    private var outputs: [[UInt8]]
    private var tallies: [Tally]

    init(count: Int) {
        outputs = Array(repeating: [], count: count)
        tallies = Array(repeating: Tally(), count: count)
    }

    func store(_ chunk: Int, output: [UInt8], tally: Tally) {
        outputs.withUnsafeMutableBufferPointer { $0[chunk] = output }
        tallies.withUnsafeMutableBufferPointer { $0[chunk] = tally }
    }

    func collect() -> (outputs: [[UInt8]], tally: Tally) {
        var total = Tally()
        for tally in tallies { total.add(tally) }
        return (outputs, total)
    }
}

/// Counts of verdicts, by reason.
struct Tally {
    var total = 0
    var valid = 0
    var byReason: [String: Int] = [:]

    var rejected: Int { total - valid }

    mutating func count(_ result: Result<VerifiedToken, VerificationError>) {
        switch result {
        case .success:
            total += 1
            valid += 1
        case .failure(let error): count(error.reason)
        }
    }

    mutating func count(_ reason: VerificationError.Reason) {
        total += 1
        byReason[reason.rawValue, default: 0] += 1
    }

    mutating func add(_ other: Tally) {
        total += other.total
        valid += other.valid
        for (reason, n) in other.byReason { byReason[reason, default: 0] += n }
    }

    /// `jwtverify: 12 tokens, 4 valid, 8 rejected` and one indented line per reason.
    var summary: String {
        var text = "jwtverify: \(total) token\(total == 1 ? "" : "s"), \(valid) valid, \(rejected) rejected\n"
        let known = VerificationError.Reason.all.map(\.rawValue)
        let ordered = byReason.keys.sorted { (known.firstIndex(of: $0) ?? 99, $0) < (known.firstIndex(of: $1) ?? 99, $1) }
        for reason in ordered {
            text += "  \(reason.padding(18)) \(byReason[reason]!)\n"
        }
        return text
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
