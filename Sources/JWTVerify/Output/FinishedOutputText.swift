/// The text a ``OutputText`` built, handed over with its buffer (no copy) to be written out from
/// another thread. Immutable; the buffer is freed with the last reference.
package final class FinishedOutputText: @unchecked Sendable {
    private let base: UnsafeMutablePointer<UInt8>
    /// The number of octets.
    package let count: Int

    /// Takes ownership of `count` octets at `base` (allocated with `UnsafeMutablePointer.allocate`).
    init(takingOwnershipOf base: UnsafeMutablePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { base.deallocate() }

    /// Runs `body` with the octets.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
