internal import CByteKernels

/// Where the bytes a JSON string may not hold as plain lie in a short document: one bit per byte,
/// set for the quote, the backslash, control characters, DEL and bytes of 0x80 and up (what
/// ``JSONStringBytes/firstSpecial(_:from:)`` stops at), made in one SIMD pass over the whole
/// document (`jwtv_json_special_masks`). With it, ``FlatJSONScanner`` finds the end of each
/// string from the marks instead of reading the string's bytes.
///
/// ``none`` holds no marks: the scanner then reads each string word by word.
struct SpecialIndex {
    /// Longest document marked: its masks (one word per 64 bytes) fit the 1 KiB Swift allocates
    /// on the stack.
    static let maximumIndexedBytes = 8192

    /// The masks, one word per 64 bytes of `count`; `nil` for ``none``.
    private let masks: UnsafePointer<UInt64>?
    /// The length of the document marked.
    private let count: Int

    /// No marks.
    static var none: SpecialIndex { SpecialIndex(masks: nil, count: 0) }

    /// Runs `body` with the marks of `bytes` (valid only inside `body`), or with ``none`` when
    /// `bytes` is longer than ``maximumIndexedBytes``.
    @inline(__always)
    static func with<R>(_ bytes: UnsafeRawBufferPointer, _ body: (SpecialIndex) -> R) -> R {
        guard let base = bytes.baseAddress, bytes.count <= maximumIndexedBytes else { return body(.none) }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: maximumIndexedBytes / 64) { words in
            guard let start = words.baseAddress else { return body(.none) }
            jwtv_json_special_masks(base, bytes.count, start)
            return body(SpecialIndex(masks: UnsafePointer(start), count: bytes.count))
        }
    }

    /// The index of the first byte of `bytes[from...]` the scanner does not read as plain, or
    /// `bytes.count`: from the marks when `bytes` is (a prefix of) the document marked, else by
    /// ``JSONStringBytes/firstSpecial(_:from:)``.
    @inline(__always)
    func firstSpecial(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard let masks, bytes.count <= count else { return Self.readFirstSpecial(bytes, from: start) }
        let end = bytes.count
        guard start < end else { return end }
        var word = start &>> 6
        var bits = masks[word] & (~0 &<< UInt64(start & 63))
        let words = (end &+ 63) &>> 6
        while bits == 0 {
            word &+= 1
            if word >= words { return end }
            bits = masks[word]
        }
        return min(word &<< 6 &+ bits.trailingZeroBitCount, end)
    }

    /// The marks of `bytes` made with instruction set `instructionSet` (`JWTV_ISA_SCALAR`,
    /// `JWTV_ISA_AVX2` or `JWTV_ISA_AVX512`: 0, 1, 2), one word per 64 bytes; `nil` when this CPU
    /// lacks it. For the tests that hold the SIMD forms to the scalar one.
    static func masks(of bytes: UnsafeRawBufferPointer, instructionSet: Int32) -> [UInt64]? {
        var words = [UInt64](repeating: 0xDEAD_BEEF, count: (bytes.count + 63) / 64)
        let made = words.withUnsafeMutableBufferPointer { words in
            jwtv_json_special_masks_using(bytes.baseAddress, bytes.count, words.baseAddress, instructionSet)
        }
        return made == 0 ? words : nil
    }

    /// ``JSONStringBytes/firstSpecial(_:from:)``, kept out of line so that the callers' path
    /// through the marks stays short.
    @inline(never)
    private static func readFirstSpecial(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        JSONStringBytes.firstSpecial(bytes, from: start)
    }
}
