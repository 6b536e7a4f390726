#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The last few JOSE headers one thread verified, by their exact base64url text.
///
/// A service sees the same few headers over and over (one per signing key), and decoding and
/// validating one costs more than comparing its text. Only headers that validated and selected a
/// key are kept, with that key's index. An entry belongs to the verifier that made it
/// (``Verifier``'s `identity`): the allow-list and the key set both decide a header's outcome, and
/// an identity is never reused. A hit gives exactly what a miss computes: the same algorithm, a
/// fresh copy of the same `kid`, the same key.
///
/// Headers that bring their key in an `x5c` chain (App Store signed data, about 6 KB of text, the
/// same for every token one leaf signs) are kept with the chain's key and validity, under a policy
/// whose chain verdicts cannot change (validated chains remembered, no online checks): a hit skips
/// decoding the header and looking the chain up.
///
/// Owned by one thread, inside ``ThreadContexts``: no lock, and no reference count shared with
/// other threads (the `kid` is handed out as a new string, not the memo's own).
struct HeaderMemo {
    /// A trusted `x5c` chain's leaf key and the interval in which the chain is valid.
    struct Chain {
        let key: EVPPublicKey
        let validity: ClosedRange<Double>
    }

    private struct Entry {
        var verifier: UInt64
        var segment: [UInt8]
        var algorithm: SignatureAlgorithm
        var keyID: [UInt8]?
        var keyIndex: Int
        var chain: Chain?
    }

    /// Entries kept; the oldest is replaced.
    static let capacity = 4
    /// Longest header text kept (real headers are 40–200 octets).
    static let longestSegment = 256
    /// Longest header text kept with a chain (Apple's are about 6 KB).
    static let longestChainSegment = 16 << 10

    private var entries: [Entry] = []
    private var next = 0

    /// What a header text gave: the header, and its key's index in the key set or its chain.
    struct Remembered {
        let header: JOSEHeader
        let keyIndex: Int
        let chain: Chain?
    }

    /// The header and key index (or chain) remembered for the header text `segment` under `verifier`.
    func lookup(_ segment: UnsafeRawBufferPointer, verifier: UInt64) -> Remembered? {
        guard let wanted = segment.baseAddress else { return nil }
        return entries.withUnsafeBufferPointer { entries in
            for i in entries.indices where entries[i].verifier == verifier && entries[i].segment.count == segment.count
            {
                let same = entries[i].segment.withUnsafeBytes { memcmp($0.baseAddress!, wanted, segment.count) == 0 }
                guard same else { continue }
                let keyID = entries[i].keyID.map { bytes in
                    bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                }
                return Remembered(
                    header: JOSEHeader(algorithm: entries[i].algorithm, keyID: keyID), keyIndex: entries[i].keyIndex,
                    chain: entries[i].chain)
            }
            return nil
        }
    }

    /// Remembers that `segment` validated to `header` and selected key `keyIndex` (or, for a
    /// header that brings its chain, that chain) under `verifier`.
    mutating func remember(
        _ segment: UnsafeRawBufferPointer, verifier: UInt64, header: JOSEHeader, keyIndex: Int, chain: Chain? = nil
    ) {
        guard segment.count <= (chain == nil ? Self.longestSegment : Self.longestChainSegment) else { return }
        let entry = Entry(
            verifier: verifier, segment: Array(segment), algorithm: header.algorithm,
            keyID: header.keyID.map { Array($0.utf8) },
            keyIndex: keyIndex, chain: chain)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
    }
}
