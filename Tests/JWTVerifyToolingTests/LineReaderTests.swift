import JWTVerifyTestSupport
import Testing

@testable import JWTVerifyTooling

/// The line reader against a plain split of the same input, over random inputs, read sizes,
/// line limits and batch bounds: lines across reads and batches, empty lines, lines over the
/// limit (counted, not kept), a last line without a newline, and the storage bound.
@Suite("line reader: batches read in place")
struct LineReaderTests {
    enum Expected: Equatable {
        case text([UInt8])
        case oversized(Int)
    }

    static func reference(_ input: [UInt8], lineLimit: Int) -> [Expected] {
        var pieces = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if input.last == UInt8(ascii: "\n") || input.isEmpty { pieces.removeLast() }
        return pieces.map { $0.count > lineLimit ? .oversized($0.count) : .text($0) }
    }

    static func read(
        _ input: [UInt8], lineLimit: Int, chunkSize: Int, maxLines: Int, maxBytes: Int
    ) -> (lines: [Expected], batches: [LineBatch], bytesRead: Int, bound: Int) {
        var offset = 0
        let reader = LineReader(lineLimit: lineLimit, chunkSize: chunkSize) { buffer in
            let n = min(buffer.count, input.count - offset)
            if n > 0 {
                input.withUnsafeBytes {
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)]))
                }
            }
            offset += n
            return n
        }
        var lines: [Expected] = []
        var batches: [LineBatch] = []
        while let batch = try? reader.nextBatch(maxLines: maxLines, maxBytes: maxBytes) {
            for line in batch.lines {
                switch line {
                case .text(let range): lines.append(.text(Array(batch.storage[range])))
                case .oversized(let length): lines.append(.oversized(length))
                case .piece: Issue.record("a discarding reader made a piece")
                }
            }
            batches.append(batch)
        }
        return (lines, batches, reader.bytesRead, max(1, maxBytes) + lineLimit + 2 * chunkSize)
    }

    @Test("random inputs agree with a plain split, in numbered batches within their bounds")
    func randomInputs() {
        var rng = SplitMix(state: 41)
        var oversized = 0
        for _ in 0..<3_000 {
            let lineLimit = Int.random(in: 0..<60, using: &rng)
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<12, using: &rng) {
                let length = [0, 1, 5, 30, 59, 60, 61, 150].randomElement(using: &rng)!
                input += (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
                if Int.random(in: 0..<8, using: &rng) > 0 { input.append(UInt8(ascii: "\n")) }
            }
            let chunkSize = Int.random(in: 1...40, using: &rng)
            let maxLines = Int.random(in: 1...6, using: &rng)
            let maxBytes = Int.random(in: 1...120, using: &rng)
            let expected = Self.reference(input, lineLimit: lineLimit)
            let read = Self.read(
                input, lineLimit: lineLimit, chunkSize: chunkSize, maxLines: maxLines, maxBytes: maxBytes)
            #expect(
                read.lines == expected, "limit \(lineLimit), chunk \(chunkSize), lines \(maxLines), bytes \(maxBytes)")
            #expect(read.bytesRead == input.count)
            var number = 1
            for batch in read.batches {
                #expect(batch.firstLineNumber == number)
                #expect(!batch.lines.isEmpty && batch.lines.count <= maxLines)
                number += batch.lines.count
                // Storage grows past its bound only for a kept line longer than the bound allows.
                let longest = batch.lines.map { if case .text(let range) = $0 { range.count } else { 0 } }.max() ?? 0
                #expect(batch.storage.count <= max(read.bound, 2 * (longest + chunkSize) + read.bound))
            }
            oversized += expected.filter { if case .oversized = $0 { true } else { false } }.count
        }
        #expect(oversized > 1_000)
    }

    @Test("a line far past the limit streams through in bounded storage, and a long kept line grows it")
    func longLines() {
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + Array("\nnext\n".utf8)
        let read = Self.read(huge, lineLimit: 100, chunkSize: 4096, maxLines: 10, maxBytes: 1000)
        #expect(read.lines == [.oversized(1 << 20), .text(Array("next".utf8))])
        #expect(read.batches.allSatisfy { $0.storage.count <= read.bound })
        let kept = [UInt8](repeating: UInt8(ascii: "b"), count: 300_000) + [UInt8(ascii: "\n")]
        let long = Self.read(kept, lineLimit: 1 << 20, chunkSize: 4096, maxLines: 10, maxBytes: 1000)
        #expect(long.lines == [.text(Array(kept.dropLast()))])
    }

    /// Reads `input` with a splitting reader and gives each line back as its pieces.
    static func readSplit(
        _ input: [UInt8], lineLimit: Int, searchBytes: Int, headBytes: Int, chunkSize: Int, maxLines: Int, maxBytes: Int
    ) -> (lines: [(number: Int, pieces: [(bytes: [UInt8], piece: LinePiece?)])], maxStorage: Int) {
        var offset = 0
        let reader = LineReader(
            lineLimit: lineLimit,
            longLines: .split(isSeparator: { $0 == UInt8(ascii: " ") }, searchBytes: searchBytes, headBytes: headBytes),
            chunkSize: chunkSize
        ) { buffer in
            let n = min(buffer.count, input.count - offset)
            if n > 0 {
                input.withUnsafeBytes {
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)]))
                }
            }
            offset += n
            return n
        }
        var lines: [(number: Int, pieces: [(bytes: [UInt8], piece: LinePiece?)])] = []
        var open = false
        var maxStorage = 0
        while let batch = try? reader.nextBatch(maxLines: maxLines, maxBytes: maxBytes) {
            maxStorage = max(maxStorage, batch.storage.count)
            for (index, line) in batch.lines.enumerated() {
                let number = batch.lineNumber(at: index)
                let entry: (bytes: [UInt8], piece: LinePiece?)
                switch line {
                case .text(let range): entry = (Array(batch.storage[range]), nil)
                case .piece(let range, let piece): entry = (Array(batch.storage[range]), piece)
                case .oversized:
                    Issue.record("a splitting reader discarded a line")
                    continue
                }
                if open { lines[lines.count - 1].pieces.append(entry) } else { lines.append((number, [entry])) }
                open = entry.piece.map { !$0.last } ?? false
            }
        }
        #expect(!open, "the last line's last piece is missing")
        return (lines, maxStorage)
    }

    @Test(
        "split mode: each long line comes back whole from pieces cut after a separator, numbered, headed, within the limit"
    )
    func splitLines() {
        var rng = SplitMix(state: 7)
        var forcedCuts = 0
        var splitLines = 0
        for _ in 0..<2_000 {
            let lineLimit = Int.random(in: 1..<40, using: &rng)
            let searchBytes = Int.random(in: 1...lineLimit, using: &rng)
            let headBytes = Int.random(in: 0..<10, using: &rng)
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<8, using: &rng) {
                let length = [0, 1, 5, 39, 40, 41, 150, 400].randomElement(using: &rng)!
                let spaces = Int.random(in: 0...3, using: &rng)  // 0: no separator at all
                input += (0..<length).map { _ in
                    spaces > 0 && Int.random(in: 0..<(8 * spaces), using: &rng) == 0
                        ? UInt8(ascii: " ") : UInt8.random(in: 0x61...0x7A, using: &rng)
                }
                if Int.random(in: 0..<8, using: &rng) > 0 { input.append(UInt8(ascii: "\n")) }
            }
            let chunkSize = Int.random(in: 1...40, using: &rng)
            let maxLines = Int.random(in: 1...6, using: &rng)
            let maxBytes = Int.random(in: 1...120, using: &rng)
            var expected = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
            if input.last == UInt8(ascii: "\n") || input.isEmpty { expected.removeLast() }
            let read = Self.readSplit(
                input, lineLimit: lineLimit, searchBytes: searchBytes, headBytes: headBytes, chunkSize: chunkSize,
                maxLines: maxLines,
                maxBytes: maxBytes)
            let context =
                "limit \(lineLimit), search \(searchBytes), chunk \(chunkSize), lines \(maxLines), bytes \(maxBytes)"
            #expect(read.lines.map { $0.pieces.flatMap(\.bytes) } == expected, "\(context)")
            #expect(read.lines.map(\.number) == Array(1..<(expected.count + 1)), "\(context)")
            // Storage never holds more than a batch, a piece and two reads (no doubling for long lines).
            #expect(read.maxStorage <= max(1, maxBytes) + 2 * chunkSize + lineLimit + 1, "\(context)")
            for line in read.lines {
                let whole = line.pieces.flatMap(\.bytes)
                if line.pieces.count == 1 {
                    #expect(line.pieces[0].piece == nil && whole.count <= lineLimit, "\(context)")
                    continue
                }
                splitLines += 1
                var offset = 0
                for (index, (bytes, piece)) in line.pieces.enumerated() {
                    guard let piece else {
                        Issue.record("a split line has a whole-line entry")
                        continue
                    }
                    #expect(piece.offset == offset && piece.last == (index == line.pieces.count - 1), "\(context)")
                    #expect(bytes.count <= lineLimit, "\(context)")
                    #expect(
                        piece.head
                            == (index == 0 ? [] : Array(whole.prefix(min(headBytes, line.pieces[0].bytes.count)))),
                        "\(context)")
                    if !piece.last {
                        if piece.forcedCut {
                            forcedCuts += 1
                            #expect(
                                bytes.count == lineLimit && !bytes.suffix(searchBytes).contains(UInt8(ascii: " ")),
                                "\(context)")
                        } else {
                            #expect(bytes.last == UInt8(ascii: " "), "\(context)")
                        }
                    }
                    offset += bytes.count
                }
            }
        }
        #expect(splitLines > 500 && forcedCuts > 100, "\(splitLines) split lines, \(forcedCuts) forced cuts")
    }
}
