import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#endif

/// The chunk pipeline under the batch faces' threads, and the runner over it: results in the
/// order given whatever order the workers finish in, never more than the window in flight, an
/// early stop or a finish with chunks still queued ends without waiting for them, and a read
/// failure comes after every line read before it.
@Suite("batch runner: chunks on worker threads, results in input order")
struct BatchRunnerTests {
    /// Chunks that take uneven times come back in the order given, on every worker count.
    @Test("results in the order given", arguments: [1, 2, 3, 8])
    func order(workers: Int) {
        let pipeline = ChunkPipeline<Int>(workers: workers, window: 6)
        defer { pipeline.finish() }
        var taken: [Int] = []
        var rng = SplitMix(state: UInt64(workers))
        for index in 0..<400 {
            while pipeline.isFull { taken.append(pipeline.take()!) }
            let pause = UInt32.random(in: 0..<200, using: &rng)
            pipeline.submit {
                usleep(pause)
                return index
            }
        }
        while let value = pipeline.take() { taken.append(value) }
        #expect(taken == Array(0..<400))
        #expect(pipeline.inFlight == 0)
    }

    /// The workers run ahead of a slow taker, as far as the window and no further.
    @Test("the workers run ahead up to the window")
    func runsAhead() {
        let window = 5
        let pipeline = ChunkPipeline<Int>(workers: 3, window: window)
        defer { pipeline.finish() }
        let started = Atomic<Int>(0)
        for index in 0..<window {
            #expect(!pipeline.isFull)
            pipeline.submit {
                started.add(1, ordering: .relaxed)
                return index
            }
        }
        #expect(pipeline.isFull)
        #expect(pipeline.inFlight == window)
        var waited = 0
        while started.load(ordering: .relaxed) < window && waited < 2_000 {
            usleep(1_000)
            waited += 1
        }
        #expect(started.load(ordering: .relaxed) == window)
        #expect(pipeline.take() == 0)
        #expect(!pipeline.isFull)
        var rest: [Int] = []
        while let value = pipeline.take() { rest.append(value) }
        #expect(rest == Array(1..<window))
    }

    /// A finish with chunks still queued drops them and returns once the running ones end.
    @Test("finish drops queued chunks")
    func finishEarly() {
        let pipeline = ChunkPipeline<Int>(workers: 2, window: 64)
        let ran = Atomic<Int>(0)
        for index in 0..<64 {
            pipeline.submit {
                usleep(20_000)
                ran.add(1, ordering: .relaxed)
                return index
            }
        }
        #expect(pipeline.take() == 0)
        pipeline.finish()
        let count = ran.load(ordering: .relaxed)
        #expect(count >= 1)
        #expect(count < 64)
    }

    /// Two inputs on two threads: every line once, in order, with the bytes read so far growing;
    /// an early stop ends the run at once; a failing second input comes after the whole first.
    @Test("inputs in order; early stop; a read failure after what was read")
    func runner() throws {
        let first = (0..<10_000).map { "a\($0)" }
        let second = (0..<3_000).map { "b\($0)" }
        let runner = BatchRunner(threads: 2, lineLimit: 1 << 10)
        var seen: [String] = []
        var wrongBytes = 0
        // Each input is read whole at its first read: every chunk of the first says its size, every
        // chunk of the second both sizes.
        let firstSize = first.reduce(0) { $0 + $1.utf8.count + 1 }
        let bothSizes = firstSize + second.reduce(0) { $0 + $1.utf8.count + 1 }
        try withFiles([first, second]) { inputs in
            try runner.run(inputs) { batch, range, _ in
                Self.lines(batch, range)
            } consume: { part, bytes in
                seen += part
                if bytes != (part.first!.hasPrefix("a") ? firstSize : bothSizes) { wrongBytes += 1 }
                return true
            }
        }
        #expect(seen == first + second)
        #expect(wrongBytes == 0)

        var calls = 0
        try withFiles([first]) { inputs in
            try runner.run(inputs) { batch, range, _ in
                range.count
            } consume: { _, _ in
                calls += 1
                return calls < 3
            }
        }
        #expect(calls == 3)

        // A directory's descriptor fails to read (EISDIR) after the first input is read whole.
        let directory = open("/", O_RDONLY | O_DIRECTORY)
        #expect(directory >= 0)
        defer { close(directory) }
        var before: [String] = []
        var failure: BatchRunner.ReadFailure?
        try withFiles([first]) { inputs in
            do throws(BatchRunner.ReadFailure) {
                try runner.run(inputs + [BatchInput(name: "a folder", fd: directory)]) { batch, range, _ in
                    Self.lines(batch, range)
                } consume: { part, _ in
                    before += part
                    return true
                }
            } catch {
                failure = error
            }
        }
        #expect(before == first)
        #expect(failure?.input == "a folder")
        #expect(failure?.code == EISDIR)
    }

    /// Many one-line inputs: never more than two batches between being read and being taken.
    @Test("two batches in flight at most")
    func batchesInFlight() throws {
        let runner = BatchRunner(threads: 2, lineLimit: 1 << 10)
        let started = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let consumed = Atomic<Int>(0)
        var order: [String] = []
        try withFiles((0..<40).map { ["line \($0)"] }) { inputs in
            try runner.run(inputs) { batch, range, _ in
                let now = started.add(1, ordering: .sequentiallyConsistent).newValue
                _ = most.max(now - consumed.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
                usleep(500)
                return Self.lines(batch, range)
            } consume: { part, _ in
                order += part
                consumed.add(1, ordering: .sequentiallyConsistent)
                return true
            }
        }
        #expect(order == (0..<40).map { "line \($0)" })
        #expect(most.load(ordering: .sequentiallyConsistent) <= 2)
        #expect(most.load(ordering: .sequentiallyConsistent) >= 1)
    }

    /// A batch's chunks cover its lines in order, none longer than the chunk size, and as many as
    /// asked for while there are lines for them.
    @Test("chunks: contiguous, bounded, enough")
    func chunkRanges() {
        for count in [0, 1, 3, 7, 8, 511, 512, 513, 1_000, 4_095, 4_096] {
            for minimum in [1, 4, 8, 32] {
                let ranges = BatchRunner.chunks(of: count, atLeast: minimum)
                #expect(ranges.first?.lowerBound ?? 0 == 0)
                #expect(ranges.last?.upperBound ?? 0 == count)
                #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                #expect(ranges.allSatisfy { !$0.isEmpty && $0.count <= BatchRunner.chunkLines })
                #expect(ranges.count == min(count, max((count + 511) / 512, minimum)))
            }
        }
        #expect(BatchRunner.chunks(of: 4_096, atLeast: 1).map(\.count) == Array(repeating: 512, count: 8))
    }

    /// The text of `batch`'s lines in `range`.
    static func lines(_ batch: LineBatch, _ range: Range<Int>) -> [String] {
        range.map { index in
            guard case .text(let bytes) = batch.lines[index] else { return "?" }
            return String(decoding: batch.storage[bytes], as: UTF8.self)
        }
    }

    /// Runs `body` with one open file per input, holding its lines newline-terminated.
    private func withFiles(_ contents: [[String]], _ body: ([BatchInput]) throws -> Void) throws {
        var inputs: [BatchInput] = []
        defer { for input in inputs { close(input.fd) } }
        for (index, lines) in contents.enumerated() {
            var template = Array("/tmp/jwtverify-runner-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            #expect(fd >= 0)
            let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            unlink(path)
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            #expect(written == bytes.count)
            lseek(fd, 0, SEEK_SET)
            inputs.append(BatchInput(name: "input \(index)", fd: fd))
        }
        try body(inputs)
    }
}
