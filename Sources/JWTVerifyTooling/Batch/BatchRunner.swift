package import JWTVerify

/// One input of a batch run: a name for records and messages, and an open descriptor.
package struct BatchInput: Sendable {
    /// The path as given (`-` for standard input).
    package let name: String
    /// The descriptor to read.
    package let fd: Int32

    package init(name: String, fd: Int32) {
        self.name = name
        self.fd = fd
    }
}

/// The one way batch faces (`verify`, `audit`, `serve`'s `/verify`) go through their input:
/// inputs → ``LineReader`` (reading ahead on a thread of its own, ``BatchPrefetch``) → parallel map over contiguous chunks of each batch → the chunks'
/// results handed back in input order, so output order and tallies never depend on threads.
package struct BatchRunner {
    /// Lines per round of parallel work, and the input bytes a round may hold.
    package static let batchLines = 4096
    package static let batchBytes = 8 << 20

    /// Worker threads.
    package let threads: Int
    /// The longest line kept whole; longer ones arrive as ``LineBatch/Line/oversized(length:)``
    /// or, as `longLines` says, in pieces.
    package let lineLimit: Int
    /// What becomes of lines longer than ``lineLimit``.
    package let longLines: LineReader.LongLines

    package init(threads: Int, lineLimit: Int, longLines: LineReader.LongLines = .discard) {
        self.threads = threads
        self.lineLimit = lineLimit
        self.longLines = longLines
    }

    /// A failed read, naming the input.
    package struct ReadFailure: Error {
        package let input: String
        package let code: Int32
    }

    /// Reads every input in turn; `process` maps a range of a batch's lines (on a worker thread)
    /// and `consume` receives each chunk's result in input order with the bytes read so far, and
    /// returns false to stop early.
    package func run<Part: Sendable>(
        _ inputs: [BatchInput],
        process: @escaping @Sendable (_ batch: LineBatch, _ lines: Range<Int>, _ input: BatchInput) -> Part,
        consume: (_ part: Part, _ bytesRead: Int) -> Bool
    ) throws(ReadFailure) {
        var bytesBefore = 0
        for input in inputs {
            // The next batch is read while this one is verified.
            let prefetch = BatchPrefetch(
                fd: input.fd, lineLimit: lineLimit, longLines: longLines, maxLines: Self.batchLines,
                maxBytes: Self.batchBytes)
            defer { prefetch.finish() }
            var bytesRead = 0
            while true {
                let next: (batch: LineBatch, bytesRead: Int)?
                do {
                    next = try prefetch.next()
                } catch {
                    throw ReadFailure(input: input.name, code: error.code)
                }
                guard let (batch, read) = next else { break }
                bytesRead = read
                let parts = ParallelMap.chunks(count: batch.lines.count, threads: threads) { range in
                    process(batch, range, input)
                }
                for part in parts where !consume(part, bytesBefore + bytesRead) { return }
            }
            bytesBefore += bytesRead
        }
    }
}

/// Counts of verdicts, by reason.
package struct Tally: Sendable {
    package var total = 0
    package var valid = 0
    package var byReason: [String: Int] = [:]
    /// Blank lines: no token, no record, not a verdict.
    package var blank = 0

    package init() {}

    package var rejected: Int { total - valid }

    /// Counts one verdict (`nil`: valid).
    package mutating func count(_ reason: VerificationError.Reason?) {
        total += 1
        guard let reason else {
            valid += 1
            return
        }
        byReason[reason.rawValue, default: 0] += 1
    }

    package mutating func add(_ other: Tally) {
        total += other.total
        valid += other.valid
        blank += other.blank
        for (reason, n) in other.byReason { byReason[reason, default: 0] += n }
    }

    /// `jwtverify: 12 tokens, 4 valid, 8 rejected` and one indented line per reason.
    package var summary: String {
        var text =
            "jwtverify: \(total) token\(total == 1 ? "" : "s"), \(valid) valid, \(rejected) rejected"
            + (blank == 0 ? "" : ", \(blank) blank line\(blank == 1 ? "" : "s") skipped") + "\n"
        let known = VerificationError.Reason.all.map(\.rawValue)
        let ordered = byReason.keys.sorted {
            (known.firstIndex(of: $0) ?? 99, $0) < (known.firstIndex(of: $1) ?? 99, $1)
        }
        for reason in ordered {
            let padding = String(repeating: " ", count: max(0, 18 - reason.count))
            text += "  \(reason)\(padding) \(byReason[reason]!)\n"
        }
        return text
    }
}
