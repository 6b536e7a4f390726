import Dispatch

/// Runs `transform` over `0..<count` on up to `threads` threads, in contiguous chunks, and returns
/// the chunks' results in order.
package enum ParallelMap {
    package static func chunks<Output: Sendable>(
        count: Int, threads: Int, _ transform: @escaping @Sendable (Range<Int>) -> Output
    ) -> [Output] {
        guard count > 0 else { return [] }
        let chunkCount = min(count, threads == 1 ? 1 : threads * 4)
        let results = SlotArray<Output>(count: chunkCount)
        let work: @Sendable (Int) -> Void = { chunk in
            results.store(chunk, transform((chunk * count / chunkCount)..<((chunk + 1) * count / chunkCount)))
        }
        if chunkCount == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: chunkCount, execute: work) }
        return results.values
    }
}

/// One slot per worker, in memory of its own: a worker writes its slot through a pointer, so no
/// two threads ever mutate one array (each `withUnsafeMutableBufferPointer` on a shared array
/// was a mutating access of it, a race ThreadSanitizer reports).
private final class SlotArray<Value>: @unchecked Sendable {
    // Safety: each worker writes only its own slot; `values` is read after all workers finished.
    private let slots: UnsafeMutablePointer<Value?>
    private let count: Int
    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }
    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }
    func store(_ index: Int, _ value: Value) { slots[index] = value }
    var values: [Value] { (0..<count).map { slots[$0]! } }
}

extension Range where Bound == Int {
    /// This range cut into consecutive pieces of at most `size` (the last may be shorter).
    package func chunks(of size: Int) -> [Range<Int>] {
        precondition(size > 0)
        return stride(from: lowerBound, to: upperBound, by: size).map { $0..<Swift.min(upperBound, $0 + size) }
    }
}
