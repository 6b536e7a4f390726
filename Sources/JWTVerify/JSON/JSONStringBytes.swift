internal import CByteKernels

/// Finds the bytes that end a plain run inside a JSON string, eight bytes at a time (long runs
/// skipped by whole SIMD blocks first): what the scanner stops at when reading a string
/// (``FlatJSONScanner``) and what ``OutputText`` escapes when writing one.
///
/// Each mask has the high bit set in the bytes of a little-endian word that match. The borrow
/// tricks can also flag a byte above a true match, never below one, so the lowest flagged byte is
/// always exact: `firstFlagged` names it.
enum JSONStringBytes {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `offset`, the first in the lowest bits on every platform.
    @inline(__always)
    static func word(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }

    /// Bytes JSON text must escape: control characters, the quote, the backslash, and DEL (which
    /// `OutputText` escapes too). Bytes of 0x80 and above are not flagged.
    @inline(__always)
    static func escapeMask(_ word: UInt64) -> UInt64 {
        let control = (word &- 0x2020_2020_2020_2020) & ~word & highs
        return control | zeroBytes(word ^ 0x2222_2222_2222_2222) | zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
            | zeroBytes(word ^ 0x7F7F_7F7F_7F7F_7F7F)
    }

    /// ``escapeMask(_:)`` plus every byte of 0x80 and above: all the scanner will not read as plain.
    @inline(__always)
    static func specialMask(_ word: UInt64) -> UInt64 { escapeMask(word) | (word & highs) }

    /// The position (0–7) of the lowest flagged byte of a non-zero mask.
    @inline(__always)
    static func firstFlagged(_ mask: UInt64) -> Int { mask.trailingZeroBitCount &>> 3 }

    /// Whether the scanner will not read `byte` as plain (the byte-at-a-time form of ``specialMask(_:)``).
    @inline(__always)
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether JSON text must escape `byte` (the byte-at-a-time form of ``escapeMask(_:)``).
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
    }

    /// The index of the first byte of `bytes[from...]` that JSON text must escape, or `bytes.count`.
    @inline(__always)
    static func firstEscape(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        firstStop(bytes, from: start, special: false)
    }

    /// The index of the first byte of `bytes[from...]` the scanner does not read as plain, or `bytes.count`.
    @inline(__always)
    static func firstSpecial(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        firstStop(bytes, from: start, special: true)
    }

    /// The first two words are looked at here, where most strings (member names, short claims)
    /// end; past them, whole clean blocks are skipped by SIMD (``jwtv_json_plain_blocks``)
    /// and the words and bytes after the last clean block decide the exact position.
    @inline(__always)
    private static func firstStop(_ bytes: UnsafeRawBufferPointer, from start: Int, special: Bool) -> Int {
        var i = start
        let end = bytes.count
        if let base = bytes.baseAddress {
            var wordsBeforeBlocks = 2
            while i + 8 <= end {
                let word = word(base, at: i)
                let mask = special ? specialMask(word) : escapeMask(word)
                if mask != 0 { return i + firstFlagged(mask) }
                i += 8
                wordsBeforeBlocks -= 1
                if wordsBeforeBlocks == 0 && end - i >= 32 {
                    i += jwtv_json_plain_blocks(base + i, end - i, special ? JWTV_JSON_SPECIAL : JWTV_JSON_ESCAPE)
                }
            }
        }
        while i < end && !(special ? isSpecial(bytes[i]) : needsEscape(bytes[i])) { i += 1 }
        return i
    }
}
