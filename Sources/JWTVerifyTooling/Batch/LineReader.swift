import JWTVerify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lines of input gathered into one contiguous buffer, for one round of parallel verification.
package struct LineBatch: Sendable {
    /// One line: its bytes in ``storage`` (without the newline), or only its length when it was
    /// longer than the reader's limit and was discarded while streaming.
    package enum Line: Sendable {
        case text(Range<Int>)
        case oversized(length: Int)
        /// A piece of a line longer than the limit, from a reader that splits long lines
        /// (``LineReader/LongLines/split(isSeparator:searchBytes:headBytes:)``).
        case piece(Range<Int>, LinePiece)
    }

    /// The bytes of every kept line, back to back.
    package var storage: [UInt8] = []
    /// The lines in input order.
    package var lines: [Line] = []
    /// The 1-based number of the first line.
    package var firstLineNumber = 1
    /// Indices of pieces that do not end their line, in order (they share the next entry's number).
    package var continued: [Int] = []

    /// The 1-based input line number of entry `index` of ``lines``.
    package func lineNumber(at index: Int) -> Int {
        guard !continued.isEmpty else { return firstLineNumber + index }
        var low = 0
        var high = continued.count
        while low < high {
            let mid = (low + high) / 2
            if continued[mid] < index { low = mid + 1 } else { high = mid }
        }
        return firstLineNumber + index - low
    }
}

/// Where a piece of a long line stands in it.
package struct LinePiece: Sendable, Equatable {
    /// The piece's first byte's offset in its line.
    package let offset: Int
    /// The line's first bytes (at most the reader's `headBytes`), for pieces after the first, so
    /// that what a line starts with (a tag) reaches every piece; empty for the first piece.
    package let head: [UInt8]
    /// Whether the piece was cut where no separator was found: a token across the cut is lost.
    package let forcedCut: Bool
    /// Whether this piece ends its line.
    package let last: Bool
}

/// Reads a file descriptor and splits it on `\n` into batches, in bounded memory: each batch's
/// bytes are read straight into its own storage, so a line is never copied on its way to the
/// verifier (only the start of a line cut by a batch's end moves on to the next batch), and a line
/// longer than `lineLimit` is not kept (only its length is counted) or, with ``LongLines/split(isSeparator:searchBytes:headBytes:)``,
/// is handed out in pieces of at most `lineLimit` bytes, so input of any size, with or without
/// newlines, streams through.
package final class LineReader {
    /// What becomes of a line longer than the limit.
    package enum LongLines: Sendable {
        /// Counted, not kept: ``LineBatch/Line/oversized(length:)``.
        case discard
        /// Handed out in pieces of at most the limit (``LineBatch/Line/piece(_:_:)``), each cut
        /// just after the last byte `isSeparator` accepts among its final `searchBytes`, or at the
        /// limit when there is none (``LinePiece/forcedCut``). Pieces after the first carry the
        /// line's first `headBytes`.
        case split(isSeparator: @Sendable (UInt8) -> Bool, searchBytes: Int, headBytes: Int)
    }

    private let source: (UnsafeMutableRawBufferPointer) -> Int
    private let lineLimit: Int
    private let longLines: LongLines
    /// The line being split: the next piece's offset in it and the line's head.
    private var splitting: (offset: Int, head: [UInt8])? = nil
    /// The most bytes one read asks for.
    private let readSize: Int
    private var atEOF = false
    private var nextLineNumber = 1
    /// Bytes read from the descriptor so far.
    package private(set) var bytesRead = 0
    /// What was read past the last line handed out: the start of the next line.
    private var carry: [UInt8] = []
    /// The length so far of a line being discarded (longer than the limit), else `nil`.
    private var discarding: Int? = nil

    /// A failed `read(2)`.
    package struct ReadFailure: Error {
        package let code: Int32
    }

    /// Reads `fd` with `read(2)`.
    package convenience init(fd: Int32, lineLimit: Int, longLines: LongLines = .discard, chunkSize: Int = 1 << 20) {
        self.init(lineLimit: lineLimit, longLines: longLines, chunkSize: chunkSize) { buffer in
            read(fd, buffer.baseAddress, buffer.count)
        }
    }

    /// Reads from `source`, which fills a buffer (at most `chunkSize` octets per call) and returns
    /// the count, 0 at the end, or -1 with `errno` set (the fuzz target feeds memory through it).
    package init(
        lineLimit: Int, longLines: LongLines = .discard, chunkSize: Int = 1 << 20,
        source: @escaping (UnsafeMutableRawBufferPointer) -> Int
    ) {
        self.source = source
        self.longLines = longLines
        // A split line's pieces hold at least one byte.
        if case .split = longLines { self.lineLimit = max(1, lineLimit) } else { self.lineLimit = max(0, lineLimit) }
        self.readSize = max(1, chunkSize)
    }

    /// The next batch of at most `maxLines` lines (and roughly `maxBytes` bytes); `nil` at the end.
    ///
    /// A batch's storage holds `maxBytes` and two reads; only a line longer than that (and within
    /// the limit) makes it larger, by doubling, with the line's start copied each time.
    package func nextBatch(maxLines: Int, maxBytes: Int) throws(ReadFailure) -> LineBatch? {
        var capacity = max(1, maxBytes) + 2 * readSize
        while true {
            guard !(atEOF && carry.isEmpty && discarding == nil && splitting == nil) else { return nil }
            capacity = max(capacity, carry.count + readSize)
            let firstLineNumber = nextLineNumber
            let (storage, lines, continued, full) = try fill(capacity: capacity, maxLines: maxLines, maxBytes: maxBytes)
            if !lines.isEmpty {
                return LineBatch(storage: storage, lines: lines, firstLineNumber: firstLineNumber, continued: continued)
            }
            if full { capacity *= 2 }
        }
    }

    /// Reads into a new storage of `capacity` octets until the batch is complete, the input ends or
    /// the storage is full (`full`: then with no line, a line within the limit needs more room).
    private func fill(
        capacity: Int, maxLines: Int, maxBytes: Int
    ) throws(ReadFailure) -> (storage: [UInt8], lines: [LineBatch.Line], continued: [Int], full: Bool) {
        var lines: [LineBatch.Line] = []
        var continued: [Int] = []
        var failure: ReadFailure? = nil
        var full = false
        let storage = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            var filled = carry.count
            carry.withUnsafeBytes { if let from = $0.baseAddress { base.copyMemory(from: from, byteCount: filled) } }
            var lineStart = 0
            var scanned = 0
            /// Hands out pieces of the line being read while more than the limit of it lies
            /// before `limit` (split mode only).
            func splitPieces(before limit: Int) {
                guard case .split(let isSeparator, let searchBytes, let headBytes) = longLines else { return }
                while limit - lineStart > lineLimit {
                    let limitEnd = lineStart + lineLimit
                    var end = limitEnd
                    var forced = true
                    var k = limitEnd - 1
                    let searchStart = max(lineStart, limitEnd - max(1, searchBytes))
                    while k >= searchStart {
                        if isSeparator(base.load(fromByteOffset: k, as: UInt8.self)) {
                            end = k + 1
                            forced = false
                            break
                        }
                        k -= 1
                    }
                    let offset = splitting?.offset ?? 0
                    lines.append(
                        .piece(
                            lineStart..<end,
                            LinePiece(offset: offset, head: splitting?.head ?? [], forcedCut: forced, last: false)))
                    continued.append(lines.count - 1)
                    let head =
                        splitting?.head
                        ?? Array(
                            UnsafeRawBufferPointer(start: base + lineStart, count: min(headBytes, end - lineStart)))
                    splitting = (offset + end - lineStart, head)
                    lineStart = end
                }
            }
            reading: while true {
                if let found = memchr(base + scanned, Int32(UInt8(ascii: "\n")), filled - scanned) {
                    let end = base.distance(to: found)
                    splitPieces(before: end)
                    if let (offset, head) = splitting {
                        lines.append(
                            .piece(lineStart..<end, LinePiece(offset: offset, head: head, forcedCut: false, last: true))
                        )
                        splitting = nil
                    } else if let seen = discarding {
                        lines.append(.oversized(length: seen + end - lineStart))
                        discarding = nil
                    } else if end - lineStart > lineLimit {
                        lines.append(.oversized(length: end - lineStart))
                    } else {
                        lines.append(.text(lineStart..<end))
                    }
                    nextLineNumber += 1
                    lineStart = end + 1
                    scanned = lineStart
                    if lines.count >= maxLines || lineStart >= maxBytes { break }
                    continue
                }
                scanned = filled
                // No newline yet: past the limit, the line is handed out in pieces...
                if case .split = longLines {
                    splitPieces(before: filled)
                    scanned = filled
                    if lines.count >= maxLines || lineStart >= maxBytes { break reading }
                }
                // ...or dropped and only counted.
                else if discarding != nil || filled - lineStart > lineLimit {
                    discarding = (discarding ?? 0) + filled - lineStart
                    filled = lineStart
                    scanned = lineStart
                }
                if atEOF {
                    // A last line without a newline still counts.
                    if let (offset, head) = splitting {
                        lines.append(
                            .piece(
                                lineStart..<filled, LinePiece(offset: offset, head: head, forcedCut: false, last: true))
                        )
                        splitting = nil
                        nextLineNumber += 1
                        lineStart = filled
                    } else if let seen = discarding {
                        lines.append(.oversized(length: seen))
                        discarding = nil
                        nextLineNumber += 1
                    } else if filled > lineStart {
                        lines.append(.text(lineStart..<filled))
                        nextLineNumber += 1
                        lineStart = filled
                    }
                    break
                }
                if filled == capacity {
                    full = true
                    break
                }
                let n = source(
                    UnsafeMutableRawBufferPointer(start: base + filled, count: min(readSize, capacity - filled)))
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = ReadFailure(code: errno)
                    break
                }
                bytesRead += n
                if n == 0 { atEOF = true } else { filled += n }
            }
            // The start of the next line moves on to the next batch.
            carry = Array(UnsafeRawBufferPointer(start: base + lineStart, count: filled - lineStart))
            initialized = filled
        }
        if let failure { throw failure }
        return (storage, lines, continued, full)
    }
}
