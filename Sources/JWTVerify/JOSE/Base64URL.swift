/// Strict base64url (RFC 4648 §5, as JWS uses it: RFC 7515 §2).
///
/// Decoding accepts only the alphabet `A–Z a–z 0–9 - _`, no padding and no whitespace; a length
/// ≡ 1 (mod 4) is invalid, and the unused low bits of the last character must be zero, so every
/// byte string has exactly one accepted encoding.
package enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an input byte to its 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// The decoded length of `count` input characters, or `nil` when no valid encoding has that length.
    package static func decodedLength(_ count: Int) -> Int? {
        count % 4 == 1 ? nil : count / 4 * 3 + max(0, count % 4 - 1)
    }

    /// Decodes `input` into `output` (at least `decodedLength(input.count)` octets).
    /// Returns the number of octets written, or `nil` when `input` is not strict base64url.
    package static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard let length = decodedLength(input.count), output.count >= length else { return nil }
        return decodeTable.withUnsafeBufferPointer { table -> Int? in
            var bad: UInt8 = 0
            var i = 0
            var o = 0
            let full = input.count & ~3
            while i < full {
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                bad |= a | b | c | d
                output[o] = a << 2 | b >> 4
                output[o + 1] = b << 4 | c >> 2
                output[o + 2] = c << 6 | d
                i += 4
                o += 3
            }
            switch input.count - full {
            case 2:
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                bad |= a | b
                if b & 0x0F != 0 { return nil }
                output[o] = a << 2 | b >> 4
                o += 1
            case 3:
                let a = table[Int(input[i])], b = table[Int(input[i + 1])], c = table[Int(input[i + 2])]
                bad |= a | b | c
                if c & 0x03 != 0 { return nil }
                output[o] = a << 2 | b >> 4
                output[o + 1] = b << 4 | c >> 2
                o += 2
            default:
                break
            }
            return bad & 0xC0 == 0 ? o : nil
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
