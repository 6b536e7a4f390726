import Dispatch
import Synchronization

/// Chunks of work run by worker threads of their own, their results taken back in the order the
/// chunks were given. The batch faces' verification on more than one thread: a worker that has
/// finished its share of a batch goes on with the next batch's chunks while the last ones of the
/// batch before are finished, where a parallel map per batch left it waiting at every batch's
/// end (and left the calling thread's own writing and tallying between batches unshared).
///
/// At most ``window`` chunks are given and not yet taken, so memory stays bounded. One thread
/// gives and takes (``submit(_:)``, ``take()``, ``finish()``); the workers only run chunks.
final class ChunkPipeline<Part: Sendable>: @unchecked Sendable {
    // Safety: `tasks` and `results` are rings of `window` slots. A task slot is written by the
    // giving thread before `available` is signalled and read by the one worker whose claim
    // (`claimed`) names it; a result slot is written by that worker before its `filled` semaphore
    // is signalled and read by the taking thread after waiting on it; `room` keeps a slot from
    // being given again before it was taken. The semaphores are edges ThreadSanitizer sees.
    /// Chunks given and not yet taken, at most.
    let window: Int
    private let tasks: UnsafeMutablePointer<(@Sendable () -> Part)?>
    private let results: UnsafeMutablePointer<Part?>
    private let filled: [DispatchSemaphore]
    private let available = DispatchSemaphore(value: 0)
    /// Counted up from 0 rather than created at `window`: libdispatch traps when a semaphore is
    /// freed below its initial value, which an early finish leaves this one at.
    private let room = DispatchSemaphore(value: 0)
    private let claimed = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let workersDone = DispatchGroup()
    private let workers: Int
    private var given = 0
    private var taken = 0
    private var finished = false

    /// Starts `workers` threads for chunks, with at most `window` chunks in flight.
    init(workers: Int, window: Int) {
        precondition(workers > 0 && window > 0)
        self.workers = workers
        self.window = window
        tasks = .allocate(capacity: window)
        tasks.initialize(repeating: nil, count: window)
        results = .allocate(capacity: window)
        results.initialize(repeating: nil, count: window)
        filled = (0..<window).map { _ in DispatchSemaphore(value: 0) }
        for _ in 0..<window { room.signal() }
        for index in 0..<workers {
            workersDone.enter()
            // A queue of its own targets libdispatch's overcommit pool, which starts a thread for
            // it even while the shared pool's threads are all busy or blocked (the reading thread
            // waits in one): a chunk never waits for them.
            DispatchQueue(label: "jwtverify.worker.\(index)").async { [self] in
                defer { workersDone.leave() }
                work()
            }
        }
    }

    deinit {
        tasks.deinitialize(count: window)
        tasks.deallocate()
        results.deinitialize(count: window)
        results.deallocate()
    }

    /// Chunks given and not yet taken.
    var inFlight: Int { given - taken }

    /// Whether ``submit(_:)`` would wait for a chunk to be taken first.
    var isFull: Bool { inFlight == window }

    /// Gives a chunk to the workers; waits while ``window`` chunks are in flight (take one first,
    /// or this waits for ever).
    func submit(_ task: @escaping @Sendable () -> Part) {
        precondition(!finished, "a chunk given after finish()")
        room.wait()
        tasks[given % window] = task
        given += 1
        available.signal()
    }

    /// The result of the oldest chunk not yet taken, waiting for it; `nil` when none is in flight.
    func take() -> Part? {
        precondition(!finished, "a result taken after finish()")
        guard taken < given else { return nil }
        let slot = taken % window
        filled[slot].wait()
        let part = results[slot].take()
        taken += 1
        room.signal()
        return part
    }

    /// Ends the workers: chunks not yet started are dropped, those running are finished, and
    /// their results are dropped with the rest. Called once, before the pipeline goes away.
    func finish() {
        guard !finished else { return }
        finished = true
        stopping.store(true, ordering: .releasing)
        for _ in 0..<workers { available.signal() }
        workersDone.wait()
        for slot in 0..<window {
            tasks[slot] = nil
            results[slot] = nil
        }
    }

    /// A worker's loop: claims the next chunk, runs it, and fills its result slot.
    private func work() {
        while true {
            available.wait()
            if stopping.load(ordering: .acquiring) { return }
            // Acquiring and releasing: a claim follows every claim before it, so the task slot it
            // names, written before some earlier claimer's signal, is seen here too.
            let index = claimed.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
            let slot = index % window
            let task = tasks[slot].take()!
            results[slot] = task()
            filled[slot].signal()
        }
    }
}
