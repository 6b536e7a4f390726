/// A SHA-256 digest held inline: 32 octets in the value itself, no allocation. Token
/// fingerprints and nonce hashes, made per token by reports.
package struct SHA256Digest: Hashable, Sendable {
    /// The octets in order, as four words of memory.
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// All zero, to be filled through ``withUnsafeMutableBytes(_:)``.
    package init() {}

    /// The SHA-256 of `input`, with this thread's reused digest context.
    package init(hashing input: UnsafeRawBufferPointer) {
        withUnsafeMutableBytes { _ = MessageDigest.sha256.hash(input, into: $0) }
    }

    /// Runs `body` with the 32 octets.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: words, body)
    }

    /// Runs `body` with the 32 octets to write.
    package mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeMutableBytes(of: &words, body)
    }

    /// The octets as an array.
    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Lowercase hex.
    package var hex: String { withUnsafeBytes { HexDigits.string($0) } }

    /// Whether both hold the same octets.
    package static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }

    /// Hashes the octets.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
