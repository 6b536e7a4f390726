internal import CByteKernels
package import JWTVerify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
/// Finds compact JWS tokens inside arbitrary text: log lines, HAR and JSON dumps, URLs and form
/// bodies, cookies, `Authorization: Bearer` headers.
///
/// A line is first normalised: URL escapes (`%2E`) and JSON escapes (`\u002e`, `\/`) are undone,
/// so tokens that were URL-encoded or JSON-escaped are found too. A candidate starts with `ey`
/// (the base64url of `{`) at a word boundary and runs over base64url characters and dots. It
/// counts as a token when its first segment decodes to a JSON object with an `alg`; fragments
/// that look like tokens but are not usable (fewer than three segments, an unreadable header) are
/// counted as discarded, with the reason.
package enum TokenExtractor {
    /// One token found in a line.
    package struct Found: Sendable {
        /// 1-based column in the normalised line.
        package let column: Int
        /// The token bytes: a span of the line as given, or a copy when the line had escapes undone.
        package let token: InputBytes
        /// What the text just before the token says it was.
        package let place: Place
    }

    /// Where in its text a token stood, read from the few bytes before it (after escapes are
    /// undone): what an auditor asks first about a leaked token.
    package enum Place: Sendable, Equatable, CustomStringConvertible {
        /// After `Bearer ` (an `Authorization` header, or a HAR entry's value).
        case bearer
        /// The value of a JSON member: `"key": "<token>`.
        case json(key: String)
        /// `name=<token>` after `?` or `&` (a URL's query).
        case query(name: String)
        /// `name=<token>` on a line that speaks of cookies (`Cookie:`, `Set-Cookie:`).
        case cookie(name: String)
        /// `name=<token>` elsewhere (a form body, a log's key=value).
        case parameter(name: String)
        /// Nothing recognisable before it.
        case text

        /// `bearer`, `json:KEY`, `query:NAME`, `cookie:NAME`, `param:NAME` or `text`: the
        /// records' `found_in`.
        package var description: String {
            switch self {
            case .bearer: "bearer"
            case .json(let key): "json:" + key
            case .query(let name): "query:" + name
            case .cookie(let name): "cookie:" + name
            case .parameter(let name): "param:" + name
            case .text: "text"
            }
        }

        /// Longest name kept; longer ones are cut (short names stay inline, with no allocation).
        static let nameLimit = 32

        /// The place of a token starting at `start` of `text`.
        static func of(_ text: UnsafeRawBufferPointer, before start: Int) -> Place {
            func name(endingAt end: Int) -> (String, Int)? {
                var first = end
                while first > 0, end - first < nameLimit, isNameByte(text[first - 1]) { first -= 1 }
                guard first < end else { return nil }
                return (String(decoding: UnsafeRawBufferPointer(rebasing: text[first..<end]), as: UTF8.self), first)
            }
            /// Where a quote (`"`, or `\"` inside a JSON string) ends just before `end`: its start.
            func quote(before end: Int) -> Int? {
                guard end > 0, text[end - 1] == UInt8(ascii: "\"") else { return nil }
                return end >= 2 && text[end - 2] == UInt8(ascii: "\\") ? end - 2 : end - 1
            }
            var i = start
            // `"key": "` (any spaces around the colon).
            if let open = quote(before: i) {
                var j = open
                while j > 0, text[j - 1] == UInt8(ascii: " ") { j -= 1 }
                if j > 0, text[j - 1] == UInt8(ascii: ":") {
                    j -= 1
                    while j > 0, text[j - 1] == UInt8(ascii: " ") { j -= 1 }
                    if let close = quote(before: j), let (key, _) = name(endingAt: close) { return .json(key: key) }
                }
                i = open
            }
            // `Bearer ` in any letter case (after an opening quote, the value of a JSON member).
            if i >= 7 {
                let word = UnsafeRawBufferPointer(rebasing: text[(i - 7)..<i])
                if word[6] == UInt8(ascii: " "), zip(word.prefix(6), "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) {
                    return .bearer
                }
            }
            // `name=`.
            if i > 0, text[i - 1] == UInt8(ascii: "="), let (key, first) = name(endingAt: i - 1) {
                if first > 0, text[first - 1] == UInt8(ascii: "?") || text[first - 1] == UInt8(ascii: "&") {
                    return .query(name: key)
                }
                // The cookie header's name, within a few hundred bytes before.
                let line = UnsafeRawBufferPointer(rebasing: text[max(0, first - 512)..<first])
                if containsIgnoringCase(line, "cookie") { return .cookie(name: key) }
                return .parameter(name: key)
            }
            return .text
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            Base64URL.isAlphabet(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "[")
                || byte == UInt8(ascii: "]")
        }

        /// Whether `haystack` contains `needle` (lowercase ASCII) in any letter case.
        private static func containsIgnoringCase(_ haystack: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
            let count = needle.utf8CodeUnitCount
            guard haystack.count >= count else { return false }
            let pattern = UnsafeRawBufferPointer(start: needle.utf8Start, count: count)
            var k = 0
            while k + count <= haystack.count {
                var match = true
                for m in 0..<count where haystack[k + m] | 0x20 != pattern[m] {
                    match = false
                    break
                }
                if match { return true }
                k += 1
            }
            return false
        }
    }

    /// Why a token-like fragment was not taken.
    package enum Discard: String, Sendable, CaseIterable {
        /// A JOSE header followed by fewer than two dots: cut off (often split across lines).
        case truncated = "truncated"
        /// Three or more segments whose first does not decode to a JSON object with `alg`.
        case notAHeader = "not_a_jose_header"
        /// A run of bytes as long as a line piece with no separator in it: the line was cut
        /// inside it, so a token across the cut was not read.
        case unbrokenRun = "unbroken_run"
    }

    /// Whether a line may be cut just after `byte` without cutting a token or an escape this
    /// extractor undoes: `byte` is neither base64url, `.`, `%` nor `\` (a `%XX` or `\uXXXX`
    /// escape's inner bytes are all alphanumeric; `\/` ends with its `/`).
    package static func isSeparator(_ byte: UInt8) -> Bool {
        !(Base64URL.isAlphabet(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%")
            || byte == UInt8(ascii: "\\"))
    }

    /// The tokens in `line` (spans relative to it), and the fragments discarded.
    package static func scan(_ line: UnsafeRawBufferPointer) -> (found: [Found], discarded: [Discard]) {
        var found: [Found] = []
        var discarded: [Discard] = []
        var headers = HeaderSegmentMemo()
        scan(line, headers: &headers, found: { found.append($0) }, discarded: { discarded.append($0) })
        return (found, discarded)
    }

    /// Calls `found` for each token in `line`, in order, and `discarded` for each fragment not
    /// taken. A token's span is relative to `line`. `headers` keeps the verdicts on header
    /// segments across the caller's lines.
    package static func scan(
        _ line: UnsafeRawBufferPointer, headers: inout HeaderSegmentMemo, found: (Found) -> Void,
        discarded: (Discard) -> Void
    ) {
        // Most lines have nothing to undo: scan them in place.
        guard let base = line.baseAddress else { return }
        guard memchr(base, Int32(UInt8(ascii: "%")), line.count) == nil,
            memchr(base, Int32(UInt8(ascii: "\\")), line.count) == nil
        else {
            normalized(line).withUnsafeBytes { text in
                scan(normalizedText: text, inPlace: false, headers: &headers, found: found, discarded: discarded)
            }
            return
        }
        scan(normalizedText: line, inPlace: true, headers: &headers, found: found, discarded: discarded)
    }

    /// ``scan(_:found:discarded:)`` over text whose escapes are already undone; tokens are spans
    /// of it when it is the caller's line (`inPlace`), else copies.
    private static func scan(
        normalizedText text: UnsafeRawBufferPointer, inPlace: Bool, headers: inout HeaderSegmentMemo,
        found: (Found) -> Void, discarded: (Discard) -> Void
    ) {
        var i = 0
        let n = text.count
        guard let base = text.baseAddress else { return }
        while i + 1 < n {
            // Candidates start at `ey`: memmem skips the text between them.
            guard let e = jwtv_memmem(base + i, n - i, "ey", 2) else { break }
            i = UnsafeRawPointer(e) - base
            guard i == 0 || !Base64URL.isAlphabet(text[i - 1]) else {
                i += 1
                continue
            }
            var j = i
            var dots = 0
            var firstDot = -1
            // The candidate runs over base64url segments joined by dots.
            while true {
                j = Base64URL.endOfRun(text, from: j)
                guard j < n, text[j] == UInt8(ascii: ".") else { break }
                dots += 1
                if firstDot < 0 { firstDot = j }
                j += 1
            }
            // A full token followed by a sentence's full stop: the stop is not part of it.
            if dots == 3 && text[j - 1] == UInt8(ascii: ".") {
                j -= 1
                dots = 2
            }
            let headerEnd = firstDot < 0 ? j : firstDot
            let looksLikeHeader = headers.verdict(UnsafeRawBufferPointer(rebasing: text[i..<headerEnd]), isJOSEHeader)
            if dots >= 2 {
                if looksLikeHeader {
                    let token: InputBytes =
                        inPlace ? .span(i..<j) : .copy(Array(UnsafeRawBufferPointer(rebasing: text[i..<j])))
                    found(Found(column: i + 1, token: token, place: Place.of(text, before: i)))
                } else {
                    discarded(.notAHeader)
                }
            } else if looksLikeHeader {
                discarded(.truncated)
            }
            i = max(j, i + 1)
        }
    }

    /// Whether `segment` decodes to a JSON object with a string `alg`.
    static func isJOSEHeader(_ segment: UnsafeRawBufferPointer) -> Bool {
        guard segment.count >= 8 else { return false }
        return withUnsafeTemporaryAllocation(byteCount: segment.count, alignment: 1) { buffer in
            guard let length = Base64URL.decode(segment, into: buffer) else { return false }
            var isHeader = false
            JSONFieldReader.read(UnsafeRawBufferPointer(rebasing: buffer[..<length]), strings: ["alg"], jsonValues: [])
            { read in
                if case .success(let fields) = read { isHeader = fields.string(0)?.kind == .string }
            }
            return isHeader
        }
    }

    /// `line` with `%XX`, `\uXXXX` (ASCII) and `\/` undone.
    static func normalized(_ line: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(line.count)
        var i = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        while i < line.count {
            let byte = line[i]
            if byte == UInt8(ascii: "%"), i + 2 < line.count, let high = hex(line[i + 1]), let low = hex(line[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else if byte == UInt8(ascii: "\\"), i + 1 < line.count, line[i + 1] == UInt8(ascii: "/") {
                out.append(UInt8(ascii: "/"))
                i += 2
            } else if byte == UInt8(ascii: "\\"), i + 5 < line.count, line[i + 1] == UInt8(ascii: "u"),
                let a = hex(line[i + 2]), let b = hex(line[i + 3]), let c = hex(line[i + 4]), let d = hex(line[i + 5]),
                a == 0, b == 0, (c << 4 | d) < 0x80
            {
                out.append(c << 4 | d)
                i += 6
            } else {
                out.append(byte)
                i += 1
            }
        }
        return out
    }
}
