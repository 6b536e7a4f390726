import Testing

@testable import JWTVerify

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
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let bytes = (0..<97).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let encoded = Array(Base64URL.encode(bytes).utf8)
        for position in encoded.indices {
            // Every byte outside the alphabet, in the SIMD blocks (the first 128 characters) and after.
            for bad in (0...255).map(UInt8.init) where !alphabet.contains(bad) {
                var damaged = encoded
                damaged[position] = bad
                #expect(Base64URL.decode(damaged) == nil, "\(bad) at \(position)")
            }
        }
        // Into a larger buffer: the octets after the decoded length keep their sentinel.
        for length in 0..<97 {
            let input = Array(Base64URL.encode(Array(bytes[..<length])).utf8)
            var output = [UInt8](repeating: 0xA5, count: length + 16)
            let written = input.withUnsafeBytes { inBuffer in
                output.withUnsafeMutableBytes { Base64URL.decode(inBuffer, into: $0) }
            }
            #expect(written == length)
            #expect(Array(output[..<length]) == Array(bytes[..<length]))
            #expect(output[length...].allSatisfy { $0 == 0xA5 }, "length \(length)")
        }
    }

    @Test("each character decodes to its own value in every lane of a SIMD block")
    func everyCharacterInEveryLane() {
        // 64-character blocks go through the AVX-512 pass where the CPU has it, 32-character
        // blocks through AVX2; the final quantum never does. 132 characters: a 64-character block,
        // a 32-character one, and the rest.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for (value, character) in alphabet.enumerated() {
            for lane in 0..<100 {
                var input = [UInt8](repeating: UInt8(ascii: "A"), count: 132)
                input[lane] = character
                guard let decoded = Base64URL.decode(input) else {
                    Issue.record("\(character) in lane \(lane) refused")
                    continue
                }
                // The lane's 6 bits, read back out of the 24-bit group they landed in.
                let group = lane / 4 * 3
                let bits = UInt32(decoded[group]) << 16 | UInt32(decoded[group + 1]) << 8 | UInt32(decoded[group + 2])
                #expect(bits >> UInt32(18 - 6 * (lane % 4)) & 0x3F == UInt32(value), "\(character) in lane \(lane)")
                #expect(decoded.enumerated().allSatisfy { $0.offset / 3 == lane / 4 || $0.element == 0 })
            }
        }
    }

    @Test("a run of the alphabet ends at the first other byte, at every position and alignment")
    func endOfRun() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        // Past two 64-octet blocks (AVX-512), a 32-octet one (AVX2) and the 16-octet ones.
        let run = (0..<180).map { alphabet[($0 * 7) % 64] }
        for start in 0..<4 {
            #expect(run.withUnsafeBytes { Base64URL.endOfRun($0, from: start) } == run.count)
            for position in start..<run.count {
                for value in (0...255).map(UInt8.init) {
                    var bytes = run
                    bytes[position] = value
                    let expected = alphabet.contains(value) ? run.count : position
                    #expect(
                        bytes.withUnsafeBytes { Base64URL.endOfRun($0, from: start) } == expected,
                        "\(value) at \(position)")
                    #expect(Base64URL.isAlphabet(value) == alphabet.contains(value))
                }
            }
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
