/// Bytes read out of an input: a span of it when they stand there as they are, or a copy when
/// they had to be changed (escapes undone), so the common case copies nothing.
package enum InputBytes: Sendable {
    case span(Range<Int>)
    case copy([UInt8])

    /// Runs `body` with the bytes, resolving a span against `input`.
    package func withBytes<R>(in input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .span(let range): body(UnsafeRawBufferPointer(rebasing: input[range]))
        case .copy(let bytes): bytes.withUnsafeBytes(body)
        }
    }

    /// The bytes as an array of their own, resolving a span against `input`.
    package func bytes(in input: UnsafeRawBufferPointer) -> [UInt8] {
        switch self {
        case .span(let range): Array(UnsafeRawBufferPointer(rebasing: input[range]))
        case .copy(let bytes): bytes
        }
    }
}
