#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The verdicts ``TokenExtractor`` gave the last few header segments it looked at: whether each
/// decodes to a JSON object with a string `alg`. A log's tokens share a handful of headers (one per
/// signing key), so a segment seen before is compared, not decoded and parsed again.
///
/// Owned by one caller (a batch of lines on one thread); its storage is reused, so a miss costs no
/// allocation once the entries hold segments of that size.
package struct HeaderSegmentMemo {
    /// Most segments remembered; the oldest is replaced.
    static let capacity = 4
    /// Longest segment remembered (longer ones are judged each time).
    static let maximumLength = 512

    private var segments: [[UInt8]] = []
    private var verdicts: [Bool] = []
    private var next = 0

    /// No segments remembered.
    package init() {}

    /// The verdict on `segment`: remembered, or `judge`'s, which is then remembered.
    mutating func verdict(_ segment: UnsafeRawBufferPointer, _ judge: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        for (index, known) in segments.enumerated() where known.count == segment.count {
            let same = known.withUnsafeBytes { known in
                guard let a = known.baseAddress, let b = segment.baseAddress else { return true }
                return memcmp(a, b, segment.count) == 0
            }
            if same { return verdicts[index] }
        }
        let verdict = judge(segment)
        guard segment.count <= Self.maximumLength else { return verdict }
        if segments.count < Self.capacity {
            segments.append(Array(segment))
            verdicts.append(verdict)
        } else {
            segments[next].removeAll(keepingCapacity: true)
            segments[next].append(contentsOf: segment)
            verdicts[next] = verdict
            next = (next + 1) % Self.capacity
        }
        return verdict
    }
}
