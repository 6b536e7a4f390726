import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The word-at-a-time string escaping of ``OutputText`` against a byte-by-byte reference, and the
/// shared hex digits.
@Suite("JSON text: string escaping and hex digits")
struct OutputTextTests {
    /// RFC 8259 escaping as OutputText promises it: quote, backslash, \n \r \t by name, other control
    /// characters and DEL as \u00xx, every other byte as is.
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x7F: out += Array(String(format: "\\u%04x", Int(byte)).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    static func written(_ bytes: [UInt8]) -> [UInt8] {
        var text = OutputText()
        text.string(bytes)
        return text.bytes
    }

    @Test("every byte value at every position of the first two words and across the boundary")
    func everyByteEverywhere() {
        var checked = 0
        for length in [1, 7, 8, 9, 16, 17, 24] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    #expect(
                        Self.written(bytes) == Self.reference(bytes), "length \(length), byte \(value) at \(position)")
                    checked += 1
                }
            }
        }
        #expect(checked == 82 * 256)
    }

    @Test("random strings with several escapes agree with the reference and parse back")
    func randomStrings() throws {
        var rng = SplitMix(state: 11)
        let alphabet: [UInt8] =
            Array("abcXYZ019 -_.~".utf8) + [0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x00, 0x1F, 0x7F, 0x20, 0x7E]
        for _ in 0..<5_000 {
            let length = Int.random(in: 0..<48, using: &rng)
            let bytes = (0..<length).map { _ in
                Int.random(in: 0..<6, using: &rng) < 5 ? UInt8(ascii: "a") : alphabet.randomElement(using: &rng)!
            }
            let out = Self.written(bytes)
            #expect(out == Self.reference(bytes))
            let parsed = try JSONSerialization.jsonObject(with: Data(out), options: [.fragmentsAllowed]) as? String
            #expect(parsed.map { Array($0.utf8) } == bytes)
        }
    }

    @Test("multi-byte UTF-8 is written as is")
    func unicode() {
        let value = "é日本語🙂 \"q\" e\u{7F}"
        var text = OutputText()
        text.string(value)
        #expect(text.string == #""é日本語🙂 \"q\" e\u007f""#)
    }

    @Test("integers and whole numbers: every digit count, both signs, the extremes")
    func integers() {
        var values: [Int64] = [0, 1, -1, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power]
        }
        var rng = SplitMix(state: 5)
        for _ in 0..<2_000 { values.append(Int64(bitPattern: rng.next()) >> Int64.random(in: 0..<63, using: &rng)) }
        for value in values {
            var text = OutputText()
            text.integer(Int(value))
            #expect(text.string == String(value))
        }
        var whole = OutputText()
        whole.number(1_767_225_600)
        whole.number(-0.5)
        whole.number(9_007_199_254_740_992)
        #expect(whole.string == "1767225600,-0.5,9007199254740992")
    }

    @Test("hex digits: every byte, as JSON and as a String")
    func hex() {
        let bytes = (0...255).map { UInt8($0) }
        let expected = bytes.map { String(format: "%02x", Int($0)) }.joined()
        #expect(HexDigits.string(bytes) == expected)
        var text = OutputText()
        text.hexString(bytes)
        #expect(text.string == "\"" + expected + "\"")
    }

    @Test("integers: the digit count at every power of ten and its neighbours, and random values, as Swift prints them")
    func digitCounts() {
        var values: [Int64] = [0, 1, 9, 10, 11, 99, 100, .max, .min, .max - 1, .min + 1]
        for power in sequence(first: Int64(10), next: { $0 <= Int64.max / 10 ? $0 * 10 : nil }) {
            values += [power - 1, power, power + 1, -(power - 1), -power]
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...62))
        }
        for value in values {
            #expect(OutputText.decimalDigits(value.magnitude) == String(value.magnitude).count, "\(value)")
            var text = OutputText()
            text.integer(Int(value))
            #expect(text.string == String(value))
        }
        var largest = OutputText()
        largest.append(.integer(.min))
        #expect(largest.string == "-9223372036854775808")
        #expect(OutputText.decimalDigits(.max) == 20 && OutputText.decimalDigits(10_000_000_000_000_000_000) == 20)
        #expect(OutputText.decimalDigits(9_999_999_999_999_999_999) == 19)
    }
}
