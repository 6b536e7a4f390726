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

/// Reads a file descriptor in large chunks and splits it on `\n` into batches, in bounded memory:
/// a line longer than `lineLimit` is not kept (only its length is counted), so input of any size,
/// with or without newlines, streams through.
package final class LineReader {
    private let source: (UnsafeMutableRawBufferPointer) -> Int
    private let lineLimit: Int
    private var chunk: [UInt8]
    private var position = 0
    private var end = 0
    private var atEOF = false
    private var nextLineNumber = 1
    /// Bytes read from the descriptor so far.
    package private(set) var bytesRead = 0
    /// Bytes of the current line seen so far when it is being discarded, else `nil`.
    private var discarding: Int? = nil
    /// The current line's start in the batch being built, if it was begun in an earlier chunk.
    private var pending: [UInt8] = []
    /// The size of the last batch, reserved for the next one (no growth by doubling and copying).
    private var lastStorageBytes = 0
    private var lastLineCount = 0

    /// A failed `read(2)`.
    package struct ReadFailure: Error {
        package let code: Int32
    }

    /// Reads `fd` with `read(2)`.
    package convenience init(fd: Int32, lineLimit: Int, chunkSize: Int = 1 << 20) {
        self.init(lineLimit: lineLimit, chunkSize: chunkSize) { buffer in read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Reads from `source`, which fills a buffer and returns the count, 0 at the end, or -1 with
    /// `errno` set (the fuzz target feeds memory through it).
    package init(lineLimit: Int, chunkSize: Int = 1 << 20, source: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
        self.source = source
        self.lineLimit = lineLimit
        self.chunk = [UInt8](repeating: 0, count: max(1, chunkSize))
    }

    /// The next batch of at most `maxLines` lines (and roughly `maxBytes` bytes); `nil` at the end.
    package func nextBatch(maxLines: Int, maxBytes: Int) throws(ReadFailure) -> LineBatch? {
        var batch = LineBatch()
        batch.firstLineNumber = nextLineNumber
        batch.storage.reserveCapacity(lastStorageBytes)
        batch.lines.reserveCapacity(lastLineCount)
        defer {
            lastStorageBytes = batch.storage.count
            lastLineCount = batch.lines.count
        }
        while batch.lines.count < maxLines && batch.storage.count < maxBytes {
            if position == end {
                if atEOF { break }
                try refill()
                if position == end {
                    finishLastLine(into: &batch)
                    break
                }
            }
            let newline = chunk.withUnsafeBytes { raw -> Int? in
                guard let found = memchr(raw.baseAddress! + position, Int32(UInt8(ascii: "\n")), end - position) else {
                    return nil
                }
                return raw.baseAddress!.distance(to: UnsafeRawPointer(found))
            }
            let stop = newline ?? end
            // The common case: a whole line inside the chunk goes straight into the batch.
            if newline != nil, pending.isEmpty, discarding == nil, stop - position <= lineLimit {
                let start = batch.storage.count
                chunk.withUnsafeBytes { raw in
                    batch.storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[position..<stop]))
                }
                batch.lines.append(.text(start..<batch.storage.count))
                nextLineNumber += 1
                position = stop + 1
                continue
            }
            take(position..<stop)
            position = stop
            if newline != nil {
                position += 1
                emitLine(into: &batch)
            }
        }
        return batch.lines.isEmpty ? nil : batch
    }

    private func refill() throws(ReadFailure) {
        while true {
            let n = chunk.withUnsafeMutableBytes { source($0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadFailure(code: errno)
            }
            position = 0
            end = n
            bytesRead += n
            if n == 0 { atEOF = true }
            return
        }
    }

    /// Adds part of the current line, switching to discarding once it passes the limit.
    private func take(_ range: Range<Int>) {
        if let seen = discarding {
            discarding = seen + range.count
        } else if pending.count + range.count > lineLimit {
            discarding = pending.count + range.count
            pending.removeAll(keepingCapacity: false)
        } else {
            pending.append(contentsOf: chunk[range])
        }
    }

    private func emitLine(into batch: inout LineBatch) {
        if let length = discarding {
            batch.lines.append(.oversized(length: length))
            discarding = nil
        } else {
            let start = batch.storage.count
            batch.storage.append(contentsOf: pending)
            batch.lines.append(.text(start..<batch.storage.count))
            pending.removeAll(keepingCapacity: true)
        }
        nextLineNumber += 1
    }

    /// At end of input, a last line without a newline still counts.
    private func finishLastLine(into batch: inout LineBatch) {
        if discarding != nil || !pending.isEmpty { emitLine(into: &batch) }
    }
}
