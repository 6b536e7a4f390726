@testable import JWTVerify
import Testing

@Suite("base64url")
struct Base64URLTests {
    @Test(
        "strict decoding",
        arguments: [
            ("", [] as [UInt8]?), ("QQ", [0x41]), ("QUI", [0x41, 0x42]), ("QUJD", [0x41, 0x42, 0x43]),
            ("_-8", [0xFF, 0xEF]), ("A", nil), ("QR", nil), ("QUJ", nil), ("QQ==", nil), ("QQ=", nil),
            ("Q+E", nil), ("Q/E", nil), ("QU I", nil), ("QU\nI", nil), ("QUJD\n", nil), ("ABCDE", nil),
            ("eyI", [0x7B, 0x22]), ("eyJ", nil), ("é", nil),
        ])
    func decode(input: String, expected: [UInt8]?) {
        #expect(Base64URL.decode(Array(input.utf8)) == expected)
    }

    @Test("every length round-trips, and each encoding is the only accepted one")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(Base64URL.decode(Array(encoded.utf8)) == bytes)
            #expect(Base64URL.decodedLength(encoded.utf8.count) == length)
        }
    }

    @Test("a byte outside the alphabet is refused at every position, and nothing is written past the decoded length")
    func everyPositionAndBounds() {
        let bytes = (0..<97).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let encoded = Array(Base64URL.encode(bytes).utf8)
        for position in encoded.indices {
            for bad in [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"), 0x00, 0x80, 0xFF] {
                var damaged = encoded
                damaged[position] = bad
                #expect(Base64URL.decode(damaged) == nil, "\(bad) at \(position)")
            }
        }
        // Into a larger buffer: the octets after the decoded length keep their sentinel.
        for length in 0..<40 {
            let input = Array(Base64URL.encode(Array(bytes[..<length])).utf8)
            var output = [UInt8](repeating: 0xA5, count: length + 16)
            let written = input.withUnsafeBytes { inBuffer in output.withUnsafeMutableBytes { Base64URL.decode(inBuffer, into: $0) } }
            #expect(written == length)
            #expect(Array(output[..<length]) == Array(bytes[..<length]))
            #expect(output[length...].allSatisfy { $0 == 0xA5 }, "length \(length)")
        }
    }

    @Test("non-zero unused trailing bits are rejected")
    func canonicalTrailingBits() {
        // "QR" and "QUK" decode to the same octets as "QQ" and "QUI" by a lenient decoder.
        #expect(Base64URL.decode(Array("QR".utf8)) == nil)
        #expect(Base64URL.decode(Array("QUK".utf8)) == nil)
        #expect(Base64URL.decode(Array("QUI".utf8)) == [0x41, 0x42])
    }
}
