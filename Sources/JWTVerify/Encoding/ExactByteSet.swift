#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Texts from the configuration (the accepted issuers, the accepted audiences) that each token's
/// claims are matched against by their UTF-8 bytes (see ``ExactBytes``).
///
/// The texts live in one buffer of bytes with their ends in another, so a per-token check reads
/// them through two pointers: no reference count per text on memory every thread shares (a list
/// of arrays retained each element it compared, and the threads' counts contended for its lines).
package struct ExactByteSet: Sendable {
    /// Every text's bytes, one after another.
    private let bytes: [UInt8]
    /// Where each text ends in ``bytes`` (it starts where the one before it ends).
    private let ends: [Int]

    /// The texts, in order.
    package init(_ texts: [String]) {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        for text in texts {
            bytes.append(contentsOf: text.utf8)
            ends.append(bytes.count)
        }
        self.bytes = bytes
        self.ends = ends
    }

    /// Whether one of the texts is exactly `text`'s bytes.
    package func contains(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { contains(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether one of the texts is exactly `own`.
    package func contains(bytes own: UnsafeRawBufferPointer) -> Bool {
        bytes.withUnsafeBytes { all in
            ends.withUnsafeBufferPointer { ends in
                var start = 0
                for end in ends {
                    defer { start = end }
                    guard end - start == own.count else { continue }
                    if own.isEmpty || memcmp(own.baseAddress!, all.baseAddress! + start, own.count) == 0 {
                        return true
                    }
                }
                return false
            }
        }
    }
}
