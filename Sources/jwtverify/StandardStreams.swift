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

    /// Queues `bytes`, writing when the buffer is full.
    func write(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    /// Queues a string.
    func write(_ text: String) { write(text.utf8) }

    /// Writes everything queued.
    func flush() {
        guard failure == nil else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        buffer.withUnsafeBytes { raw in
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
