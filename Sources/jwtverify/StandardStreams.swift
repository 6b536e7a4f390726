import Dispatch
import JWTVerify
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A buffered writer to a file descriptor (stdout), writing with `write(2)` in large blocks.
///
/// Avoids the C `stdout` global (not concurrency-safe in Swift 6). A failed write (a closed pipe,
/// a full disk) is remembered and reported as an I/O error by the command.
///
/// With `writeBehind`, the blocks are written by a thread of their own, in order, while the
/// caller goes on verifying: the kernel's copy of the records is off the verifying threads. At
/// most ``blocksInFlight`` blocks wait to be written, so memory stays bounded; ``flush()`` returns
/// once everything is written.
final class OutputSink {
    private let descriptor: Descriptor
    private var buffer: [UInt8] = []
    private let capacity: Int
    private let writer: DispatchQueue?
    private let slots = DispatchSemaphore(value: OutputSink.blocksInFlight)
    /// Blocks queued for the writing thread at most.
    static let blocksInFlight = 3

    /// The first write error (`errno`), if any. With `writeBehind`, a block's failure shows once
    /// the writing thread has reached it.
    var failure: Int32? { descriptor.failure }

    init(fd: Int32 = 1, capacity: Int = 1 << 18, writeBehind: Bool = false) {
        descriptor = Descriptor(fd: fd)
        self.capacity = capacity
        writer = writeBehind ? DispatchQueue(label: "jwtverify.output") : nil
        buffer.reserveCapacity(capacity)
    }

    /// Queues `bytes`, writing when the buffer is full; a block at least as large as the buffer
    /// (a batch's records) is written as it is, after what was queued, without another copy.
    func write(_ bytes: [UInt8]) {
        guard bytes.count >= capacity else { return bytes.withUnsafeBytes { append($0) } }
        submitBuffer()
        submit(Block.array(bytes))
    }

    /// Queues a batch's finished text as the array form does; the text was handed over without a copy.
    func write(_ text: FinishedOutputText) {
        guard text.count >= capacity else { return text.withUnsafeBytes { append($0) } }
        submitBuffer()
        submit(Block.text(text))
    }

    /// Queues a string.
    func write(_ text: String) { write(Array(text.utf8)) }

    /// Writes everything queued, and waits for the writing thread to finish it.
    func flush() {
        submitBuffer()
        writer?.sync {}
    }

    /// What is written in one go: the sink's own buffer or a block handed over.
    private enum Block: Sendable {
        case array([UInt8])
        case text(FinishedOutputText)

        func withUnsafeBytes(_ body: (UnsafeRawBufferPointer) -> Void) {
            switch self {
            case .array(let bytes): bytes.withUnsafeBytes(body)
            case .text(let text): text.withUnsafeBytes(body)
            }
        }
    }

    private func append(_ raw: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: raw)
        if buffer.count >= capacity { submitBuffer() }
    }

    private func submitBuffer() {
        guard !buffer.isEmpty else { return }
        if writer == nil {
            buffer.withUnsafeBytes { descriptor.writeAll($0) }
            buffer.removeAll(keepingCapacity: true)
            return
        }
        let full = buffer
        buffer = []
        buffer.reserveCapacity(capacity)
        submit(.array(full))
    }

    private func submit(_ block: Block) {
        guard let writer else { return block.withUnsafeBytes { descriptor.writeAll($0) } }
        slots.wait()
        writer.async { [descriptor, slots] in
            block.withUnsafeBytes { descriptor.writeAll($0) }
            slots.signal()
        }
    }

    /// The descriptor and its first write error, shared with the writing thread.
    private final class Descriptor: Sendable {
        let fd: Int32
        private let firstFailure = Mutex<Int32?>(nil)

        init(fd: Int32) { self.fd = fd }

        var failure: Int32? { firstFailure.withLock { $0 } }

        /// Writes `raw` with `write(2)`, remembering the first failure (and writing nothing after it).
        func writeAll(_ raw: UnsafeRawBufferPointer) {
            guard failure == nil else { return }
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    // The reader went away (`| head`): end at once, as Unix tools do, by the signal
                    // the write would have raised had it not been ignored (for sockets).
                    if errno == EPIPE {
                        signal(SIGPIPE, SIG_DFL)
                        raise(SIGPIPE)
                    }
                    let code = errno
                    firstFailure.withLock { $0 = $0 ?? code }
                    return
                }
                offset += n
            }
        }
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
