/// Lowercase hexadecimal digits, as digests are written everywhere: the expected `nonce` claim,
/// fingerprints in records, key-set snapshot names.
package enum HexDigits {
    /// The lowercase digit of a nibble (0–15).
    @inline(__always)
    package static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &- 10 &+ nibble
    }

    /// Writes the `2 * bytes.count` digits of `bytes` at `out`: eight bytes at a time, each half
    /// word's nibbles spread into eight digit bytes with no branch (a nibble above 9 is moved up
    /// to the letters by a carry out of its own byte's low bits).
    @inline(__always)
    package static func write(_ bytes: UnsafeRawBufferPointer, to out: UnsafeMutableRawPointer) {
        var i = 0
        if let base = bytes.baseAddress {
            while i &+ 8 <= bytes.count {
                let word = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // The high nibbles of the eight bytes, then the low ones, one per byte of a word:
                // the first byte's digits land first in memory.
                out.storeBytes(
                    of: digits(spread(UInt32(truncatingIfNeeded: word &>> 32))), toByteOffset: 2 &* i, as: UInt64.self)
                out.storeBytes(
                    of: digits(spread(UInt32(truncatingIfNeeded: word))), toByteOffset: 2 &* i &+ 8, as: UInt64.self)
                i &+= 8
            }
        }
        while i < bytes.count {
            out.storeBytes(of: digit(bytes[i] &>> 4), toByteOffset: 2 * i, as: UInt8.self)
            out.storeBytes(of: digit(bytes[i] & 0x0F), toByteOffset: 2 * i + 1, as: UInt8.self)
            i &+= 1
        }
    }

    /// The eight nibbles of four big-endian bytes, one per byte of a little-endian word, in
    /// the order they are written (high nibble of the first byte in the lowest byte): each
    /// nibble spread into a byte of its own, then the bytes reversed.
    @inline(__always)
    private static func spread(_ four: UInt32) -> UInt64 {
        var x = UInt64(four)
        x = (x | x &<< 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x &<< 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x &<< 4) & 0x0F0F_0F0F_0F0F_0F0F
        return x.byteSwapped
    }

    /// Each byte (a nibble, 0–15) of a word as its lowercase hex digit, as stored little-endian.
    @inline(__always)
    private static func digits(_ nibbles: UInt64) -> UInt64 {
        // 0x06 added to a nibble carries into bit 4 exactly when it is above 9.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) &>> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    /// The digits of `bytes` as a `String`.
    package static func string(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        return String(unsafeUninitializedCapacity: 2 * bytes.count) { buffer in
            bytes.withUnsafeBytes { write($0, to: UnsafeMutableRawPointer(buffer.baseAddress!)) }
            return 2 * bytes.count
        }
    }
}
