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

/// The one way the batch faces (`verify`, `audit`) go through their input files and streams:
/// inputs → ``LineReader`` (reading ahead on a thread of its own, ``BatchPrefetch``) → contiguous
/// chunks of each batch, on the calling thread (one thread) or on worker threads that go from one
/// batch's chunks to the next without waiting (``ChunkPipeline``) → the chunks' results handed
/// back in input order, so output order and tallies never depend on threads.
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
        guard threads > 1 else { return try runOnThisThread(inputs, process: process, consume: consume) }
        let pipeline = ChunkPipeline<Part>(workers: threads, window: 2 * Self.chunksPerBatch(threads: threads))
        defer { pipeline.finish() }
        // The input bytes read when each chunk in flight was given, by the chunk's number modulo
        // the window (at most that many are in flight).
        var bytesOfChunks = [Int](repeating: 0, count: pipeline.window)
        var given = 0
        var taken = 0
        // Where the batches in flight end, by chunk number (at most two batches: many short
        // inputs would otherwise put one batch's storage in flight per chunk of the window).
        var batchEnds: [Int] = []
        /// Takes the oldest chunk in flight to `consume`; false when it asks to stop.
        func consumeOldest() -> Bool {
            guard let part = pipeline.take() else { return true }
            let bytes = bytesOfChunks[taken % bytesOfChunks.count]
            taken += 1
            while let end = batchEnds.first, taken >= end { batchEnds.removeFirst() }
            return consume(part, bytes)
        }
        let completed = try forEachBatch(inputs) { batch, input, bytesRead in
            while batchEnds.count >= 2, pipeline.inFlight > 0 { guard consumeOldest() else { return false } }
            let first = given
            for range in Self.chunks(of: batch.lines.count, atLeast: threads * 4) {
                while pipeline.isFull { guard consumeOldest() else { return false } }
                bytesOfChunks[given % bytesOfChunks.count] = bytesRead
                given += 1
                pipeline.submit { process(batch, range, input) }
            }
            if given > first { batchEnds.append(given) }
            return true
        } beforeFailure: {
            // What was read before the failure is written first, as one thread writes it.
            while pipeline.inFlight > 0 { guard consumeOldest() else { return false } }
            return true
        }
        guard completed else { return }
        while pipeline.inFlight > 0 { guard consumeOldest() else { return } }
    }

    /// ``run(_:process:consume:)`` on one thread: each batch's chunks in turn, on this thread,
    /// while the next batch is read.
    private func runOnThisThread<Part: Sendable>(
        _ inputs: [BatchInput],
        process: @escaping @Sendable (_ batch: LineBatch, _ lines: Range<Int>, _ input: BatchInput) -> Part,
        consume: (_ part: Part, _ bytesRead: Int) -> Bool
    ) throws(ReadFailure) {
        _ = try forEachBatch(inputs) { batch, input, bytesRead in
            for range in Self.chunks(of: batch.lines.count, atLeast: 1) {
                guard consume(process(batch, range, input), bytesRead) else { return false }
            }
            return true
        } beforeFailure: {
            true
        }
    }

    /// Reads every input in turn, its batches read ahead on a thread of their own
    /// (``BatchPrefetch``), and hands each batch to `body` with its input and the bytes read so far
    /// over all inputs; `body` returns false to stop. A read failure calls `beforeFailure` (false:
    /// stop without it) and is thrown. Returns whether every input was read to its end.
    private func forEachBatch(
        _ inputs: [BatchInput], _ body: (_ batch: LineBatch, _ input: BatchInput, _ bytesRead: Int) -> Bool,
        beforeFailure: () -> Bool
    ) throws(ReadFailure) -> Bool {
        var bytesBefore = 0
        for input in inputs {
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
                    guard beforeFailure() else { return false }
                    throw ReadFailure(input: input.name, code: error.code)
                }
                guard let (batch, read) = next else { break }
                bytesRead = read
                guard body(batch, input, bytesBefore + bytesRead) else { return false }
            }
            bytesBefore += bytesRead
        }
        return true
    }

    /// Lines in a chunk at most: a chunk's copies of its tokens and its records stay within a
    /// core's own cache (one batch as one chunk was about 1 % slower on one thread).
    static let chunkLines = 512

    /// Chunks a full batch is cut into on `threads` threads: four each at least, so a worker that
    /// is done early takes another while the slowest finishes.
    static func chunksPerBatch(threads: Int) -> Int { max(batchLines / chunkLines, threads * 4) }

    /// `count` lines cut into contiguous ranges of at most ``chunkLines``, and at least `minimum`
    /// of them (while there are lines for them); none for none.
    static func chunks(of count: Int, atLeast minimum: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let n = min(count, max((count + chunkLines - 1) / chunkLines, minimum))
        return (0..<n).map { ($0 * count / n)..<(($0 + 1) * count / n) }
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
