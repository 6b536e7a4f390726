/// The buffer one thread decodes tokens into, lent to each walk in turn.
///
/// A walk needs room for a token's decoded header, payload and signature: at most the token's
/// length. A temporary allocation per token would cost nothing, but handing it to the walk takes
/// a closure, and a closure over a `Verifier` copies it: every reference the verifier holds is
/// then retained and released per token, on objects all the threads verifying with it share. So
/// each thread keeps one buffer (in its ``ThreadContexts``), grown to the longest token it has
/// verified, up to ``limit``. A longer token, or a walk that starts while this thread's buffer is
/// lent, gets a temporary one.
struct TokenScratch {
    /// The longest token the buffer grows for.
    static let limit = 64 << 10
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var lent = false

    /// At least `byteCount` octets of this thread's buffer, until ``giveBack()``; `nil` when the
    /// buffer is already lent or `byteCount` is over ``limit``.
    mutating func lend(byteCount: Int) -> UnsafeMutableRawBufferPointer? {
        guard !lent, byteCount <= Self.limit else { return nil }
        if buffer.count < byteCount {
            buffer.deallocate()
            buffer = .allocate(byteCount: Swift.max(byteCount, 4096), alignment: 8)
        }
        lent = true
        return buffer
    }

    /// Ends the loan ``lend(byteCount:)`` made.
    mutating func giveBack() { lent = false }

    /// Frees the buffer (the thread's contexts are going away).
    func deallocate() { buffer.deallocate() }
}
