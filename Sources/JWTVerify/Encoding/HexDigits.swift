/// Lowercase hexadecimal digits, as digests are written everywhere: the expected `nonce` claim,
/// fingerprints in records, key-set snapshot names.
package enum HexDigits {
    /// The lowercase digit of a nibble (0–15).
    @inline(__always)
    package static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &- 10 &+ nibble
    }

    /// Writes the `2 * bytes.count` digits of `bytes` at `out`.
    @inline(__always)
    package static func write(_ bytes: UnsafeRawBufferPointer, to out: UnsafeMutableRawPointer) {
        for i in 0..<bytes.count {
            out.storeBytes(of: digit(bytes[i] &>> 4), toByteOffset: 2 * i, as: UInt8.self)
            out.storeBytes(of: digit(bytes[i] & 0x0F), toByteOffset: 2 * i + 1, as: UInt8.self)
        }
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
