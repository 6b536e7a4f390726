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
    }

    /// The bytes of every kept line, back to back.
    package var storage: [UInt8] = []
    /// The lines in input order.
    package var lines: [Line] = []
    /// The 1-based number of the first line.
    package var firstLineNumber = 1
}

/// Reads a file descriptor and splits it on `\n` into batches, in bounded memory: each batch's
/// bytes are read straight into its own storage, so a line is never copied on its way to the
/// verifier (only the start of a line cut by a batch's end moves on to the next batch), and a line
/// longer than `lineLimit` is not kept (only its length is counted), so input of any size, with or
/// without newlines, streams through.
package final class LineReader {
    private let source: (UnsafeMutableRawBufferPointer) -> Int
    private let lineLimit: Int
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
    package convenience init(fd: Int32, lineLimit: Int, chunkSize: Int = 1 << 20) {
        self.init(lineLimit: lineLimit, chunkSize: chunkSize) { buffer in read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Reads from `source`, which fills a buffer (at most `chunkSize` octets per call) and returns
    /// the count, 0 at the end, or -1 with `errno` set (the fuzz target feeds memory through it).
    package init(lineLimit: Int, chunkSize: Int = 1 << 20, source: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
        self.source = source
        self.lineLimit = max(0, lineLimit)
        self.readSize = max(1, chunkSize)
    }

    /// The next batch of at most `maxLines` lines (and roughly `maxBytes` bytes); `nil` at the end.
    ///
    /// A batch's storage holds `maxBytes` and two reads; only a line longer than that (and within
    /// the limit) makes it larger, by doubling, with the line's start copied each time.
    package func nextBatch(maxLines: Int, maxBytes: Int) throws(ReadFailure) -> LineBatch? {
        var capacity = max(1, maxBytes) + 2 * readSize
        while true {
            guard !(atEOF && carry.isEmpty && discarding == nil) else { return nil }
            capacity = max(capacity, carry.count + readSize)
            let firstLineNumber = nextLineNumber
            let (storage, lines, full) = try fill(capacity: capacity, maxLines: maxLines, maxBytes: maxBytes)
            if !lines.isEmpty { return LineBatch(storage: storage, lines: lines, firstLineNumber: firstLineNumber) }
            if full { capacity *= 2 }
        }
    }

    /// Reads into a new storage of `capacity` octets until the batch is complete, the input ends or
    /// the storage is full (`full`: then with no line, a line within the limit needs more room).
    private func fill(
        capacity: Int, maxLines: Int, maxBytes: Int
    ) throws(ReadFailure) -> (storage: [UInt8], lines: [LineBatch.Line], full: Bool) {
        var lines: [LineBatch.Line] = []
        var failure: ReadFailure? = nil
        var full = false
        let storage = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            var filled = carry.count
            carry.withUnsafeBytes { if let from = $0.baseAddress { base.copyMemory(from: from, byteCount: filled) } }
            var lineStart = 0
            var scanned = 0
            while true {
                if let found = memchr(base + scanned, Int32(UInt8(ascii: "\n")), filled - scanned) {
                    let end = base.distance(to: found)
                    if let seen = discarding {
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
                // No newline yet: past the limit, the line's bytes are dropped and only counted.
                if discarding != nil || filled - lineStart > lineLimit {
                    discarding = (discarding ?? 0) + filled - lineStart
                    filled = lineStart
                    scanned = lineStart
                }
                if atEOF {
                    // A last line without a newline still counts.
                    if let seen = discarding {
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
                let n = source(UnsafeMutableRawBufferPointer(start: base + filled, count: min(readSize, capacity - filled)))
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
        return (storage, lines, full)
    }
}
