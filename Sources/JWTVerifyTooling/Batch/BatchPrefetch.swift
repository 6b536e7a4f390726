import Dispatch
import Synchronization

/// The batches of one input, read ahead by a thread of their own: while the verifying threads
/// work on one batch, the next is read and split into lines. At most ``depth`` batches wait, so
/// memory stays bounded; ``finish()`` stops the reading thread and waits for it, so the
/// descriptor can be closed afterwards.
final class BatchPrefetch: @unchecked Sendable {
    /// A batch read, with the input's bytes read so far; `nil` at the end.
    typealias Entry = Result<(batch: LineBatch, bytesRead: Int)?, LineReader.ReadFailure>

    /// Batches waiting at most.
    static let depth = 2

    // Safety: a ring of `depth` slots, one writer and one reader; the semaphores order each
    // slot's write before its read and its read before its next write (edges ThreadSanitizer
    // sees, where it cannot see Mutex's futex on Linux).
    private let ring: UnsafeMutablePointer<Entry?>
    private var written = 0
    private var taken = 0
    private let stopped = Atomic<Bool>(false)
    private let ready = DispatchSemaphore(value: 0)
    /// Counted up from 0 rather than created at `depth`: libdispatch traps when a semaphore is
    /// freed below its initial value, which an early stop leaves this one at.
    private let room = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()

    /// Starts reading `fd` in batches of at most `maxLines` lines and about `maxBytes` bytes.
    init(fd: Int32, lineLimit: Int, longLines: LineReader.LongLines, maxLines: Int, maxBytes: Int) {
        ring = .allocate(capacity: Self.depth)
        ring.initialize(repeating: nil, count: Self.depth)
        for _ in 0..<Self.depth { room.signal() }
        done.enter()
        DispatchQueue.global().async { [self] in
            defer { done.leave() }
            let reader = LineReader(fd: fd, lineLimit: lineLimit, longLines: longLines)
            while true {
                room.wait()
                if stopped.load(ordering: .acquiring) { return }
                let entry: Entry
                do throws(LineReader.ReadFailure) {
                    entry = .success(
                        try reader.nextBatch(maxLines: maxLines, maxBytes: maxBytes).map { ($0, reader.bytesRead) })
                } catch {
                    entry = .failure(error)
                }
                ring[written % Self.depth] = entry
                written += 1
                ready.signal()
                if case .success(.some) = entry { continue }
                return
            }
        }
    }

    /// The next batch, waiting for it to be read; `nil` at the end.
    func next() throws(LineReader.ReadFailure) -> (batch: LineBatch, bytesRead: Int)? {
        ready.wait()
        let entry = ring[taken % Self.depth].take()!
        taken += 1
        room.signal()
        return try entry.get()
    }

    deinit {
        ring.deinitialize(count: Self.depth)
        ring.deallocate()
    }

    /// Stops reading (after the batch in progress, if any) and waits for the reading thread.
    func finish() {
        stopped.store(true, ordering: .releasing)
        room.signal()
        done.wait()
    }
}
