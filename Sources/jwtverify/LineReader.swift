#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines of input gathered into one contiguous buffer, for one round of parallel verification.
struct LineBatch {
    /// One line: its bytes in ``storage`` (without the newline), or only its length when it was
    /// longer than the reader's limit and was discarded while streaming.
    enum Line {
        case text(Range<Int>)
        case oversized(length: Int)
    }

    /// The bytes of every kept line, back to back.
    var storage: [UInt8] = []
    /// The lines in input order.
    var lines: [Line] = []
    /// The 1-based number of the first line.
    var firstLineNumber = 1
}

/// Reads a file descriptor in large chunks and splits it on `\n` into batches, in bounded memory:
/// a line longer than `lineLimit` is not kept (only its length is counted), so input of any size,
/// with or without newlines, streams through.
final class LineReader {
    private let fd: Int32
    private let lineLimit: Int
    private var chunk: [UInt8]
    private var position = 0
    private var end = 0
    private var atEOF = false
    private var nextLineNumber = 1
    /// Bytes read from the descriptor so far.
    private(set) var bytesRead = 0
    /// Bytes of the current line seen so far when it is being discarded, else `nil`.
    private var discarding: Int? = nil
    /// The current line's start in the batch being built, if it was begun in an earlier chunk.
    private var pending: [UInt8] = []

    /// A failed `read(2)`.
    struct ReadFailure: Error {
        let code: Int32
    }

    init(fd: Int32, lineLimit: Int, chunkSize: Int = 1 << 20) {
        self.fd = fd
        self.lineLimit = lineLimit
        self.chunk = [UInt8](repeating: 0, count: chunkSize)
    }

    /// The next batch of at most `maxLines` lines (and roughly `maxBytes` bytes); `nil` at the end.
    func nextBatch(maxLines: Int, maxBytes: Int) throws(ReadFailure) -> LineBatch? {
        var batch = LineBatch()
        batch.firstLineNumber = nextLineNumber
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
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
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
