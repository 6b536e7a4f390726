internal import CByteKernels

/// Strict base64url (RFC 4648 §5, as JWS uses it: RFC 7515 §2).
///
/// Decoding accepts only the alphabet `A–Z a–z 0–9 - _`, no padding and no whitespace; a length
/// ≡ 1 (mod 4) is invalid, and the unused low bits of the last character must be zero, so every
/// byte string has exactly one accepted encoding.
package enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an input byte to its 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Per-position tables for a whole quantum: `quantum[k][byte]` is the byte's 6-bit value
    /// shifted into place for position `k` of four, or has bit 31 set for bytes outside the alphabet.
    private static let quantum: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 4 * 256)
        for position in 0..<4 {
            for byte in 0..<256 {
                let value = decodeTable[byte]
                table[position * 256 + byte] = value == 0xFF ? 0x8000_0000 : UInt32(value) << UInt32(18 - 6 * position)
            }
        }
        return table
    }()

    /// Whether `byte` is in the base64url alphabet.
    @inline(__always)
    package static func isAlphabet(_ byte: UInt8) -> Bool {
        decodeTable.withUnsafeBufferPointer { $0[Int(byte)] != 0xFF }
    }

    /// The index of the first byte of `bytes[start...]` outside the base64url alphabet, or
    /// `bytes.count`: whole blocks by SIMD, the rest byte by byte.
    package static func endOfRun(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard let base = bytes.baseAddress, start < bytes.count else { return start }
        var i = start + jwtv_base64url_run_blocks(base + start, bytes.count - start)
        return decodeTable.withUnsafeBufferPointer { table in
            while i < bytes.count && table[Int(bytes[i])] != 0xFF { i += 1 }
            return i
        }
    }

    /// The decoded length of `count` input characters, or `nil` when no valid encoding has that length.
    package static func decodedLength(_ count: Int) -> Int? {
        count % 4 == 1 ? nil : count / 4 * 3 + max(0, count % 4 - 1)
    }

    /// Decodes `input` into `output` (at least `decodedLength(input.count)` octets).
    /// Returns the number of octets written, or `nil` when `input` is not strict base64url.
    package static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let length = decodedLength(input.count), output.count >= length else { return nil }
        let full = input.count & ~3
        let rest = input.count - full
        // Whole blocks of 32 characters by SIMD where the CPU has it; the rest, and always the
        // final quantum, below.
        var i = 0
        if input.count > 32, let from = input.baseAddress, let to = output.baseAddress {
            i = jwtv_base64url_decode_blocks(from, input.count, to)
            if i < 0 { return nil }
        }
        return quantum.withUnsafeBufferPointer { table -> Int? in
            var bad: UInt32 = 0
            var o = i / 4 * 3
            while i < full {
                let word =
                    table[Int(input[i])] | table[256 + Int(input[i + 1])]
                    | table[512 + Int(input[i + 2])] | table[768 + Int(input[i + 3])]
                bad |= word
                output[o] = UInt8(truncatingIfNeeded: word >> 16)
                output[o + 1] = UInt8(truncatingIfNeeded: word >> 8)
                output[o + 2] = UInt8(truncatingIfNeeded: word)
                i += 4
                o += 3
            }
            if rest >= 2 {
                var word = table[Int(input[i])] | table[256 + Int(input[i + 1])]
                if rest == 3 { word |= table[512 + Int(input[i + 2])] }
                bad |= word
                // The unused low bits of the last character must be zero (canonical encoding).
                if (rest == 2 ? word & 0xFFFF : word & 0xFF) != 0 { return nil }
                output[o] = UInt8(truncatingIfNeeded: word >> 16)
                o += 1
                if rest == 3 {
                    output[o] = UInt8(truncatingIfNeeded: word >> 8)
                    o += 1
                }
            }
            return bad & 0x8000_0000 == 0 ? o : nil
        }
    }

    /// Decodes `input` into a new array, or `nil` when it is not strict base64url.
    package static func decode(_ input: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(input)
        guard let length = decodedLength(bytes.count) else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        let written = bytes.withUnsafeBytes { inBuffer in
            output.withUnsafeMutableBytes { decode(inBuffer, into: $0) }
        }
        return written == nil ? nil : output
    }

    /// Encodes `bytes` without padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
