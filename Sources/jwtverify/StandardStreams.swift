import JWTVerify

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered writer to a file descriptor (stdout), writing with `write(2)` in large blocks.
///
/// Avoids the C `stdout` global (not concurrency-safe in Swift 6). A failed write (a closed pipe,
/// a full disk) is remembered and reported as an I/O error by the command.
final class OutputSink {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// The first write error (`errno`), if any.
    private(set) var failure: Int32?

    init(fd: Int32 = 1, capacity: Int = 1 << 18) {
        self.fd = fd
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    /// Queues `bytes`, writing when the buffer is full; a block at least as large as the buffer
    /// (a batch's records) is written as it is, after what was queued, without another copy.
    func write(_ bytes: [UInt8]) { bytes.withUnsafeBytes { queue($0) } }

    /// Queues a batch's finished text as the array form does; the text was handed over without a copy.
    func write(_ text: FinishedJSONText) { text.withUnsafeBytes { queue($0) } }

    private func queue(_ raw: UnsafeRawBufferPointer) {
        guard raw.count >= capacity else {
            buffer.append(contentsOf: raw)
            if buffer.count >= capacity { flush() }
            return
        }
        flush()
        writeAll(raw)
    }

    /// Queues a string.
    func write(_ text: String) { write(Array(text.utf8)) }

    /// Writes `raw` with `write(2)`, remembering the first failure.
    private func writeAll(_ raw: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        var offset = 0
        while offset < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            offset += n
        }
    }

    /// Writes everything queued.
    func flush() {
        buffer.withUnsafeBytes { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Diagnostics and summaries: unbuffered, to stderr.
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(2, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// Whether stderr is a terminal.
    static var isTerminal: Bool { isatty(2) == 1 }
}
