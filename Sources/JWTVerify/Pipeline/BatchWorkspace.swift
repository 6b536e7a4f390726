/// What one thread's batch evaluation reuses from chunk to chunk: the prepared tokens, the
/// arena their segments are decoded into, and the signature stage's plan and engine-call room.
/// Kept in ``ThreadContexts`` and lent to one batch at a
/// time; a batch that starts while it is lent (from inside another's callback) gets its own.
final class BatchWorkspace {
    /// An arena larger than this is freed after the batch that needed it.
    static let keptArenaBytes = 1 << 20
    /// Room for a chunk's tokens after stage A (``Verifier/stageSize``), initialized
    /// and deinitialized chunk by chunk: the stages work on the tokens in place, never copying one.
    let prepared = UnsafeMutablePointer<PreparedToken>.allocate(capacity: Verifier.stageSize)
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// The signature stage's plan, emptied and refilled chunk by chunk.
    var plan = SignaturePlan()
    /// The room the signature stage's batch engine calls are made in.
    let signatureBatch = SignatureBatch()
    /// Whether a batch holds it.
    var isLent = false
    /// A chunk's walked tokens held back, in order, while tokens before them wait for their nested
    /// ones; emptied chunk by chunk, its capacity kept.
    var heldSteps: [(position: Int, step: WalkStep)] = []

    init() {}

    deinit {
        prepared.deallocate()
        buffer.deallocate()
    }

    /// At least `byteCount` octets, valid until the next call or ``trim()``.
    func arena(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        if buffer.count < byteCount {
            buffer.deallocate()
            buffer = .allocate(byteCount: max(byteCount, 64 << 10), alignment: 8)
        }
        return buffer
    }

    /// Frees an arena a batch of very long tokens left behind.
    func trim() {
        guard buffer.count > Self.keptArenaBytes else { return }
        buffer.deallocate()
        buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    }
}
