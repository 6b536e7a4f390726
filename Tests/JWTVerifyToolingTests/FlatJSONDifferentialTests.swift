import Foundation
import JWTVerifyTestSupport
import JWTVerifyTooling
import Testing

@testable import JWTVerify

/// The fast scanner against jansson, the arbiter: whenever the scanner accepts an input, jansson
/// must accept it too, with the same members, kinds and values. Inputs: real token headers and
/// payloads, random flat objects, and many deterministic mutations of both.
@Suite("flat JSON scanner vs jansson")
struct FlatJSONDifferentialTests {
    /// A deterministic generator (SplitMix64), so a failure reproduces.
    static let seeds: [[UInt8]] = {
        var seeds: [[UInt8]] = [
            Array(#"{"kid":"W6WcOKB6X1","alg":"RS256"}"#.utf8),
            Array(#"{ "alg" : "ES256" , "typ":"JWT","kid":"x" }"#.utf8),
            Array(
                TokenFactory.claims(extra: #""nonce":"abc","aud2":["a","b"],"n":null,"t":true,"f":false,"neg":-12"#)
                    .utf8),
            Array(#"{}"#.utf8), Array(#"{"a":[]}"#.utf8), Array(#"{"a":[1, 2 ,"x",null]}"#.utf8),
        ]
        if let data = try? Data(
            contentsOf: SharedVectors.projectVectors.appendingPathComponent("samples/apple-identity-tokens.jsonl"))
        {
            for line in data.split(separator: UInt8(ascii: "\n")).prefix(12) {
                guard let row = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    let token = row["token"] as? String
                else { continue }
                for segment in token.split(separator: ".").prefix(2) {
                    if let bytes = Base64URL.decode(Array(segment.utf8)), bytes.count < 4096 { seeds.append(bytes) }
                }
            }
        }
        return seeds
    }()

    /// Bytes that matter to JSON syntax, inserted and substituted by the mutator.
    static let interesting: [UInt8] =
        Array(#"{}[]":,\ -+.eE0123456789tfnul"#.utf8) + [0x00, 0x09, 0x0A, 0x0D, 0x7F, 0x80, 0xC3, 0xFF]

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = interesting.randomElement(using: &rng)!
            case 1: bytes.insert(interesting.randomElement(using: &rng)!, at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            case 3 where bytes.count > 4:
                // Duplicate a slice (often a whole member: duplicate names).
                let start = Int.random(in: 0..<bytes.count - 2, using: &rng)
                let end = min(bytes.count, start + Int.random(in: 1...24, using: &rng))
                bytes.insert(contentsOf: bytes[start..<end], at: position)
            case 4 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            default: bytes.append(interesting.randomElement(using: &rng)!)
            }
        }
        return bytes
    }

    static func randomFlatObject(_ rng: inout SplitMix) -> [UInt8] {
        let names = ["iss", "sub", "aud", "exp", "iat", "nbf", "nonce", "a", "", "kid", "alg"]
        var text = "{"
        for index in 0..<Int.random(in: 0...8, using: &rng) {
            if index > 0 { text += Bool.random(using: &rng) ? "," : " , " }
            text += "\"\(names.randomElement(using: &rng)!)\":"
            switch Int.random(in: 0..<7, using: &rng) {
            case 0: text += "\"v\(Int.random(in: 0...999, using: &rng))\""
            case 1: text += String(Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &rng))
            case 2: text += ["true", "false", "null"].randomElement(using: &rng)!
            case 3: text += "[\"x\", 1 ,null]"
            case 4: text += "\(Int.random(in: 0...99, using: &rng)).5"
            case 5: text += "[]"
            default: text += "0"
            }
        }
        return Array((text + (Bool.random(using: &rng) ? "}" : " }\n")).utf8)
    }

    static func disagreement(_ input: [UInt8]) -> String? {
        input.withUnsafeBytes { bytes in
            JSONDifferential.disagreement(bytes).map { "\($0): \(String(decoding: input, as: UTF8.self))" }
        }
    }

    @Test("seeds and their mutations: the scanner never accepts what jansson rejects, and agrees on values")
    func mutations() {
        var rng = SplitMix(state: 0x5EED_1234)
        var accepted = 0
        var failures: [String] = []
        var inputs = Self.seeds
        for _ in 0..<3000 { inputs.append(Self.randomFlatObject(&rng)) }
        let base = inputs
        for _ in 0..<60_000 { inputs.append(Self.mutate(base.randomElement(using: &rng)!, &rng)) }
        for input in inputs {
            if let problem = Self.disagreement(input) { failures.append(problem) }
            if input.withUnsafeBytes(JSONDifferential.scannerAccepts) { accepted += 1 }
        }
        print(
            "flat JSON differential: \(inputs.count) inputs, \(accepted) accepted by the scanner, \(failures.count) disagreements"
        )
        #expect(accepted > 3000)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test("claims read the same whichever parser runs: mutated payloads")
    func claimsAgree() {
        var rng = SplitMix(state: 0xC0FFEE)
        let seed = Array(TokenFactory.claims(extra: #""nonce":"n","x":[1,"2"]"#).utf8)
        var failures: [String] = []
        for _ in 0..<20_000 {
            if let problem = Self.disagreement(Self.mutate(seed, &rng)) { failures.append(problem) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}

/// The word-at-a-time string scan against a byte-by-byte reference.
@Suite("string scanning eight bytes at a time")
struct StringScanTests {
    /// The index of the closing quote, or nil for any byte that is not plain printable ASCII.
    static func reference(_ bytes: [UInt8], from start: Int) -> Int? {
        for i in start..<bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { return i }
            if byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "\\") { return nil }
        }
        return nil
    }

    @Test("every byte value at every position of the first two words and across the boundary")
    func everyByteEverywhere() {
        var checked = 0
        // Past the first two words, long strings are skipped 16 octets at a time by SIMD: every
        // lane of the first blocks, a block's end, and the words after the last clean block.
        for length in [7, 8, 9, 16, 17, 24, 47, 48, 49, 63, 64, 65, 79, 100] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length) + [UInt8(ascii: "\"")]
                    bytes[position] = UInt8(value)
                    let scanned = bytes.withUnsafeBytes { FlatJSONScanner.scanString($0, from: 0) }
                    #expect(scanned == Self.reference(bytes, from: 0), "length \(length), byte \(value) at \(position)")
                    checked += 1
                }
            }
        }
        #expect(checked == 596 * 256)
    }

    /// The index of the first byte JSON text must escape, or the end.
    static func escapeReference(_ bytes: [UInt8], from start: Int) -> Int {
        bytes[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F } ?? bytes.count
    }

    @Test("what JSON text escapes: every byte value at every position, at every alignment")
    func escapesEverywhere() {
        for length in [9, 16, 17, 48, 49, 64, 65, 100] {
            for start in 0..<4 {
                for position in start..<length {
                    for value in 0...255 {
                        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                        bytes[position] = UInt8(value)
                        let found = bytes.withUnsafeBytes { JSONStringBytes.firstEscape($0, from: start) }
                        #expect(
                            found == Self.escapeReference(bytes, from: start),
                            "length \(length), byte \(value) at \(position)")
                    }
                }
            }
        }
    }

    @Test("random strings from every start offset agree with the reference")
    func randomStrings() {
        var rng = SplitMix(state: 7)
        let alphabet: [UInt8] =
            Array("abcXYZ019 -_.~".utf8) + [0x22, 0x5C, 0x1F, 0x7F, 0x80, 0xFF, 0x20, 0x7E, 0x21, 0x5B, 0x5D]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<120, using: &rng)
            let bytes = (0..<length).map { _ in
                Int.random(in: 0..<10, using: &rng) < 9 ? UInt8(ascii: "a") : alphabet.randomElement(using: &rng)!
            }
            let start = length == 0 ? 0 : Int.random(in: 0..<length, using: &rng)
            let scanned = bytes.withUnsafeBytes { FlatJSONScanner.scanString($0, from: start) }
            #expect(scanned == Self.reference(bytes, from: start))
        }
    }
}

/// The marks a short document's strings are scanned through (``SpecialIndex``): each SIMD form
/// equals the scalar one and a byte-by-byte reference, and scanning through them finds what
/// reading each string finds.
@Suite("string scanning through one pass of marks")
struct SpecialIndexTests {
    /// Bit k of word w: byte 64·w + k is one the scanner does not read as plain.
    static func reference(_ bytes: [UInt8]) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: (bytes.count + 63) / 64)
        for (i, byte) in bytes.enumerated() where JSONStringBytes.isSpecial(byte) {
            words[i / 64] |= 1 << UInt64(i % 64)
        }
        return words
    }

    @Test("scalar, AVX2 and AVX-512 marks equal the reference for every length up to 300")
    func everyForm() {
        var rng = SplitMix(state: 11)
        var compared = 0
        for length in 0...300 {
            for _ in 0..<4 {
                // Mostly plain bytes, with every kind of special byte sprinkled in, and any byte value.
                let bytes = (0..<length).map { _ -> UInt8 in
                    let roll = Int.random(in: 0..<8, using: &rng)
                    return roll < 6
                        ? UInt8.random(in: 0x20...0x7E, using: &rng) : UInt8.random(in: 0...255, using: &rng)
                }
                let expected = Self.reference(bytes)
                for form: Int32 in [0, 1, 2] {
                    guard let masks = bytes.withUnsafeBytes({ SpecialIndex.masks(of: $0, instructionSet: form) }) else {
                        #expect(form != 0, "the scalar form is always there")
                        continue
                    }
                    #expect(masks == expected, "form \(form), length \(length)")
                    compared += 1
                }
            }
        }
        #expect(compared >= 301 * 4)
    }

    @Test("every byte value at every position, scanned through the marks, as read word by word")
    func everyByteThroughMarks() {
        for length in [1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length) + [UInt8(ascii: "\"")]
                    bytes[position] = UInt8(value)
                    let scanned = bytes.withUnsafeBytes { raw in
                        SpecialIndex.with(raw) { FlatJSONScanner.scanString(raw, from: 0, stops: $0) }
                    }
                    #expect(
                        scanned == StringScanTests.reference(bytes, from: 0),
                        "length \(length), byte \(value) at \(position)")
                }
            }
        }
    }

    @Test("random strings from every start offset, through the marks, agree with the reference")
    func randomStartsThroughMarks() {
        var rng = SplitMix(state: 13)
        let alphabet: [UInt8] = [0x22, 0x5C, 0x1F, 0x7F, 0x80, 0xFF, 0x20, 0x7E, 0x09, 0x0A]
        for _ in 0..<5_000 {
            let length = Int.random(in: 1..<300, using: &rng)
            let bytes = (0..<length).map { _ in
                Int.random(in: 0..<40, using: &rng) < 39 ? UInt8(ascii: "a") : alphabet.randomElement(using: &rng)!
            }
            bytes.withUnsafeBytes { raw in
                SpecialIndex.with(raw) { stops in
                    for start in stride(from: 0, to: length, by: 7) {
                        #expect(
                            FlatJSONScanner.scanString(raw, from: start, stops: stops)
                                == StringScanTests.reference(bytes, from: start))
                    }
                }
            }
        }
    }

    @Test("a document past the marked length is read string by string, with the same members")
    func longDocuments() {
        let object =
            #"{"iss":"https://appleid.apple.com","aud":["a","b"],"exp":1767226080,"n":{"x":"y"},"s":"\#(String(repeating: "z", count: 100))"}"#
        let padded = String(repeating: " ", count: SpecialIndex.maximumIndexedBytes) + object
        for text in [
            object, padded, padded + " ", object + "x", padded + "x", String(padded.dropLast(2)) + "\u{7F}\"}",
        ] {
            let bytes = Array(text.utf8)
            let flat = bytes.withUnsafeBytes { raw in
                FlatJSONScanner.withObject(raw) { object in
                    object.members.map { member in
                        String(decoding: bytes[Int(member.nameStart)..<Int(member.nameEnd)], as: UTF8.self) + "="
                            + String(decoding: bytes[Int(member.valueStart)..<Int(member.valueEnd)], as: UTF8.self)
                    }
                }
            }
            let accepted = text.trimmingCharacters(in: .whitespaces).hasSuffix("}") && !text.contains("\u{7F}")
            #expect((flat != nil) == accepted, "length \(bytes.count)")
            if accepted {
                #expect(
                    flat == [
                        "iss=\"https://appleid.apple.com\"", "aud=[\"a\",\"b\"]", "exp=1767226080", "n={\"x\":\"y\"}",
                        "s=\"\(String(repeating: "z", count: 100))\"",
                    ])
            }
        }
    }
}

/// Member names compare by an 8-byte key and then the rest: duplicates and lookups must be exact
/// for names that differ only inside the key, only past it, or only in length.
@Suite("flat JSON scanner: member names around the 8-byte key")
struct MemberNameTests {
    static func accepts(_ json: String) -> Bool {
        Array(json.utf8).withUnsafeBytes { FlatJSONScanner.withObject($0) { _ in true } } ?? false
    }

    @Test("two names that differ in one byte at any position are distinct; equal names are duplicates")
    func duplicates() {
        for length in [0, 1, 3, 7, 8, 9, 15, 16, 17, 24] {
            let name = String(repeating: "n", count: length)
            #expect(!Self.accepts(#"{"\#(name)":1,"x":2,"\#(name)":3}"#), "length \(length): duplicate accepted")
            for position in 0..<length {
                var other = Array(name.utf8)
                other[position] = UInt8(ascii: "m")
                let json = #"{"\#(name)":1,"\#(String(decoding: other, as: UTF8.self))":2}"#
                #expect(Self.accepts(json), "length \(length), differing at \(position): taken for a duplicate")
            }
            // A prefix of another name is not the same name.
            #expect(Self.accepts(#"{"\#(name)":1,"\#(name)n":2}"#), "length \(length): a prefix taken for a duplicate")
        }
    }

    @Test("lookup finds exactly the named member, also past the key and at the end of the input")
    func lookup() {
        let json = #"{"email_verified":1,"email_verifiex":2,"email":3,"emai":4,"is_private_email":5,"e":6}"#
        let found: [String: Int] = Array(json.utf8).withUnsafeBytes { bytes in
            FlatJSONScanner.withObject(bytes) { object in
                var found: [String: Int] = [:]
                func value(_ name: StaticString) -> Int? { object.member(name)?.number.map { Int($0) } }
                found["email_verified"] = value("email_verified")
                found["email"] = value("email")
                found["emai"] = value("emai")
                found["is_private_email"] = value("is_private_email")
                found["e"] = value("e")
                found["email_verifie"] = value("email_verifie")
                found["is_private_emaix"] = value("is_private_emaix")
                return found
            } ?? [:]
        }
        #expect(found == ["email_verified": 1, "email": 3, "emai": 4, "is_private_email": 5, "e": 6])
    }

    /// A table's worth of names of 0 to 24 bytes (`k` repeated, with or without a last `z`), each
    /// differing from another only in its last byte or its length: many share a key, and the
    /// index's probes run through each other.
    static let fullTable: [String] = (0..<FlatJSONScanner.maximumMembers).map { index in
        String(repeating: "k", count: index / 2) + (index % 2 == 0 ? "" : "z")
    }

    @Test("a full table: every member found by its name, every near miss absent, one more member declined")
    func fullTable() {
        let names = Self.fullTable
        let json = "{" + names.enumerated().map { #""\#($1)":\#($0)"# }.joined(separator: ",") + "}"
        Array(json.utf8).withUnsafeBytes { bytes in
            let checked = FlatJSONScanner.withObject(bytes) { object in
                for (index, name) in names.enumerated() {
                    let found = Array(name.utf8).withUnsafeBytes { object.member(named: $0)?.number }
                    #expect(
                        found == Double(index),
                        "\"\(name)\" (\(name.utf8.count) bytes) found as \(String(describing: found))")
                    for miss in [name + "y", "y" + name, String(name.dropLast()) + "y"] where !names.contains(miss) {
                        let absent = Array(miss.utf8).withUnsafeBytes { object.member(named: $0) }
                        #expect(absent == nil, "\"\(miss)\" found though absent")
                    }
                }
                return true
            }
            #expect(checked == true, "a table of \(names.count) members declined")
        }
        let overfull = "{" + (names + ["extra"]).map { #""\#($0)":0"# }.joined(separator: ",") + "}"
        #expect(!Self.accepts(overfull), "more members than the table holds accepted")
    }

    @Test("a duplicate anywhere in a full table is caught")
    func duplicatesInFullTable() {
        let names = Self.fullTable
        for duplicated in stride(from: 0, to: names.count - 1, by: 5) {
            var members = names
            members[members.count - 1] = names[duplicated]
            let json = "{" + members.map { #""\#($0)":0"# }.joined(separator: ",") + "}"
            #expect(!Self.accepts(json), "\"\(names[duplicated])\" twice accepted")
        }
    }
}
