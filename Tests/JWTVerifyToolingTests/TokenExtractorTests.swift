import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

@testable import JWTVerifyTooling

/// The extractor's block-at-a-time run over a candidate against a byte-by-byte reference, on lines
/// that mix tokens, truncated tokens, dots, `ey` look-alikes and noise at every alignment.
@Suite("token extractor: candidates scanned by whole blocks")
struct TokenExtractorTests {
    static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D
            || byte == 0x5F
    }

    /// The extraction rule, one byte at a time: (column, token) pairs and discard reasons.
    static func reference(_ text: [UInt8]) -> (found: [(Int, [UInt8])], discarded: [String]) {
        var found: [(Int, [UInt8])] = []
        var discarded: [String] = []
        var i = 0
        let n = text.count
        while i + 1 < n {
            guard text[i] == UInt8(ascii: "e"), text[i + 1] == UInt8(ascii: "y"), i == 0 || !isBase64URL(text[i - 1])
            else {
                i += 1
                continue
            }
            var j = i
            var dots = 0
            var firstDot = -1
            while j < n && (isBase64URL(text[j]) || text[j] == UInt8(ascii: ".")) {
                if text[j] == UInt8(ascii: ".") {
                    dots += 1
                    if firstDot < 0 { firstDot = j }
                }
                j += 1
            }
            if dots == 3 && text[j - 1] == UInt8(ascii: ".") {
                j -= 1
                dots = 2
            }
            let headerEnd = firstDot < 0 ? j : firstDot
            let header = Array(text[i..<headerEnd]).withUnsafeBytes { TokenExtractor.isJOSEHeader($0) }
            if dots >= 2 {
                if header { found.append((i + 1, Array(text[i..<j]))) } else { discarded.append("not_a_jose_header") }
            } else if header {
                discarded.append("truncated")
            }
            i = max(j, i + 1)
        }
        return (found, discarded)
    }

    @Test("random lines agree with the byte-by-byte reference")
    func randomLines() {
        var rng = SplitMix(state: 23)
        let token = Array(TokenFactory.token(payload: TokenFactory.claims()).utf8)
        let pieces: [[UInt8]] = [
            token, Array(token.prefix(40)), Array(token.prefix(token.count - 5)), token + [UInt8(ascii: ".")],
            Array("eyJhbGciOiJIUzI1NiJ9.x.y".utf8), Array("eyJub3QiOiJhIGhlYWRlciJ9.e30.sig".utf8), Array("ey".utf8),
            Array(" Bearer ".utf8), Array("token=".utf8), Array("...".utf8), Array("a.b.c".utf8), Array("_-".utf8),
            [0x22], [0x20],
        ]
        var tokensFound = 0
        var headers = HeaderSegmentMemo()
        for _ in 0..<4_000 {
            var line: [UInt8] = Array(repeating: UInt8(ascii: "x"), count: Int.random(in: 0..<9, using: &rng))
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                line += pieces.randomElement(using: &rng)!
                if Int.random(in: 0..<3, using: &rng) == 0 { line.append(UInt8(ascii: " ")) }
            }
            let expected = Self.reference(line)
            let (scanned, tokens) = line.withUnsafeBytes { line in
                let scanned = TokenExtractor.scan(line)
                return (scanned, scanned.found.map { $0.token.bytes(in: line) })
            }
            #expect(scanned.found.map(\.column) == expected.found.map(\.0))
            #expect(tokens == expected.found.map(\.1))
            #expect(scanned.discarded.map(\.rawValue) == expected.discarded)
            // The same line scanned with the header verdicts of every line before it (as a batch
            // scans its lines): the same tokens and discards.
            var remembered: [Int] = []
            var remembersDiscards: [String] = []
            line.withUnsafeBytes { line in
                TokenExtractor.scan(line, headers: &headers) {
                    remembered.append($0.column)
                } discarded: {
                    remembersDiscards.append($0.rawValue)
                }
            }
            #expect(remembered == expected.found.map(\.0))
            #expect(remembersDiscards == expected.discarded)
            tokensFound += scanned.found.count
        }
        #expect(tokensFound > 1_000)
    }

    @Test("header verdicts: each segment judged once while remembered, the oldest replaced, long ones judged each time")
    func headerVerdicts() {
        var memo = HeaderSegmentMemo()
        var judged: [String: Int] = [:]
        // Six segments of one length, half of them headers: more than the memo holds.
        let segments = (0..<6).map { "segment-\($0)" }
        func verdict(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { bytes in
                memo.verdict(bytes) { segment in
                    let name = String(decoding: segment, as: UTF8.self)
                    judged[name, default: 0] += 1
                    return name.hasSuffix("0") || name.hasSuffix("2") || name.hasSuffix("4")
                }
            }
        }
        for _ in 0..<3 {
            for segment in segments.prefix(HeaderSegmentMemo.capacity) {
                #expect(verdict(segment) == ["0", "2", "4"].contains(segment.suffix(1)))
            }
        }
        #expect(judged.values.allSatisfy { $0 == 1 }, "a remembered segment judged again: \(judged)")
        for segment in segments { #expect(verdict(segment) == ["0", "2", "4"].contains(segment.suffix(1))) }
        #expect(judged["segment-4"] == 1 && judged["segment-5"] == 1)
        // Segments 4 and 5 took the places of the two oldest, 0 and 1: 2 to 5 are remembered, 0 is not.
        for segment in segments.suffix(4) + [segments[0]] {
            #expect(verdict(segment) == ["0", "2", "4"].contains(segment.suffix(1)))
        }
        #expect(
            judged == ["segment-0": 2, "segment-1": 1, "segment-2": 1, "segment-3": 1, "segment-4": 1, "segment-5": 1],
            "the oldest segments were not the ones replaced")
        let long = String(repeating: "h", count: HeaderSegmentMemo.maximumLength + 1)
        #expect(verdict(long) == false && verdict(long) == false)
        #expect(judged[long] == 2, "a segment past the longest remembered was remembered")
    }

    @Test(
        "found_in: what the bytes before a token say it was, escapes undone first",
        arguments: [
            ("Authorization: Bearer T", "bearer"), ("authorization: BEARER T", "bearer"),
            (#"{"name":"Authorization","value":"Bearer T"}"#, "bearer"),
            (#"{"id_token":"T"}"#, "json:id_token"), (#"{"id_token" : "T"}"#, "json:id_token"),
            (#"{\"id_token\":\"T\"}"#, "json:id_token"),
            ("GET /cb?code=x&id_token=T&state=y", "query:id_token"), ("GET /cb?token=T", "query:token"),
            ("GET /cb?x=1%26id_token%3DT", "query:id_token"),
            ("Set-Cookie: session=T; Path=/", "cookie:session"), ("Cookie: a=b; __Host-jwt=T", "cookie:__Host-jwt"),
            ("form id_token=T", "param:id_token"), ("T", "text"), ("token: T", "text"), ("x T", "text"),
        ])
    func place(line: String, expected: String) throws {
        let token = TokenFactory.token(payload: TokenFactory.claims())
        let text = Array(line.replacingOccurrences(of: "T", with: token).utf8)
        let found = text.withUnsafeBytes { TokenExtractor.scan($0).found }
        #expect(found.count == 1, "\(line)")
        #expect(found.first?.place.description == expected, "\(line)")
    }

    @Test("JSON nested 100,000 deep in a line: no token, and no stack overflow")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Array(deep.utf8).withUnsafeBytes { TokenExtractor.scan($0).found.isEmpty })
    }
}
