import JWTVerify
package import JWTVerifyTooling

/// `serve`'s `/verify` body: one JSON request, or JSON Lines of them, exactly `verify`'s input
/// lines, answered with `verify`'s record for each, in order, through the same batch pipeline.
package enum VerifyBody {
    /// The records and their tally.
    package struct Records {
        /// `verify`'s records, one line each.
        package var output: [UInt8]
        /// Their verdicts, by reason.
        package var tally: Tally
    }

    /// Why a body is refused (`400`): the 1-based line that is not a JSON object.
    package struct Problem: Error {
        /// The 1-based line.
        package let line: Int
        /// What is wrong with it.
        package let message: String

        /// `{"error":"body_not_json","line":N,"detail":"..."}` and a newline.
        package var json: [UInt8] {
            var text = OutputText()
            text.beginObject()
            text.key("error")
            text.string("body_not_json")
            text.key("line")
            text.integer(line)
            text.key("detail")
            text.string(message)
            text.endObject()
            text.newline()
            return text.bytes
        }
    }

    /// The body's lines (blank ones skipped); every one must be a JSON object or a bare compact
    /// token (base64url and dots, as `verify` takes them), or else the body is taken whole as one
    /// pretty-printed request.
    package static func requests(_ body: UnsafeRawBufferPointer) -> Result<[Range<Int>], Problem> {
        var lines: [Range<Int>] = []
        var start = 0
        while start < body.count {
            var end = start
            while end < body.count, body[end] != UInt8(ascii: "\n") { end += 1 }
            var trimmed = start..<end
            while let last = trimmed.last, [0x20, 0x09, 0x0D].contains(body[last]) {
                trimmed = trimmed.lowerBound..<last
            }
            while let first = trimmed.first, [0x20, 0x09].contains(body[first]) {
                trimmed = (first + 1)..<trimmed.upperBound
            }
            if !trimmed.isEmpty { lines.append(trimmed) }
            start = end + 1
        }
        guard !lines.isEmpty else { return .failure(Problem(line: 1, message: "the body holds no request")) }
        for (index, line) in lines.enumerated() {
            let text = UnsafeRawBufferPointer(rebasing: body[line])
            if isBareToken(text) { continue }
            if let message = notAnObject(text) {
                // One request spread over several lines is one JSON object as a whole.
                if lines.count > 1,
                    notAnObject(
                        UnsafeRawBufferPointer(rebasing: body[lines[0].lowerBound..<lines[lines.count - 1].upperBound]))
                        == nil
                {
                    return .success([lines[0].lowerBound..<lines[lines.count - 1].upperBound])
                }
                return .failure(Problem(line: index + 1, message: message))
            }
        }
        return .success(lines)
    }

    /// Whether `line` reads as a bare compact token: base64url runs joined by dots, at least one.
    private static func isBareToken(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.first != UInt8(ascii: "{"), line.contains(UInt8(ascii: ".")) else { return false }
        return line.allSatisfy { Base64URL.isAlphabet($0) || $0 == UInt8(ascii: ".") }
    }

    private static func notAnObject(_ line: UnsafeRawBufferPointer) -> String? {
        var problem: String? = nil
        JSONFieldReader.read(line, strings: [], jsonValues: []) { read in
            switch read {
            case .success: problem = nil
            case .failure(.invalid(let message)): problem = "not valid JSON: \(message)"
            case .failure(.notObject): problem = "not a JSON object"
            }
        }
        return problem
    }

    /// Evaluates every request of `body` with `evaluator`, through the verifier's batch pipeline.
    package static func evaluate(_ body: [UInt8], with evaluator: RequestLineEvaluator) -> Result<Records, Problem> {
        body.withUnsafeBytes { bytes in
            requests(bytes).map { lines in
                var text = OutputText()
                text.reserveCapacity(lines.count * 384)
                let tally = evaluator.evaluate(count: lines.count, file: nil, into: &text) { index in
                    (index + 1, .text(UnsafeRawBufferPointer(rebasing: bytes[lines[index]])))
                }
                return Records(output: text.bytes, tally: tally)
            }
        }
    }
}
