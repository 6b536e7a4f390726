package import JWTVerify

/// One line of `verify` input (and of `serve`'s `/verify` body) in its JSON form:
/// `{"token": "…", "nonce": "raw"?, "id": …?, "dpop": "proof"?, "method": "GET"?, "uri": "https://…"?}`
/// (a `"dpop"` proof needs the request's `"method"` and `"uri"` beside it).
///
/// The JSON form carries tokens of any bytes (a bare line cannot hold a newline). Other members
/// are ignored, so annotated sample files (`"expect"`, `"comment"`) can be fed as they are;
/// Apple's envelope members (``NotificationEnvelope/memberNames``: `"payload"`, `"signedPayload"`)
/// may stand for `"token"`, so notification bodies can be fed as they are. Ordinary lines are read
/// by the fast scanner with jansson as the arbiter, and the token and nonce are borrowed from the
/// line, not copied.
package struct TokenRequest {
    /// The token's bytes, exactly as the JSON string holds them after unescaping.
    package var token: UnsafeRawBufferPointer
    /// The raw nonce for this token, when given.
    package var nonce: UnsafeRawBufferPointer?
    /// The caller's `id` as compact JSON, when given.
    package var idJSON: String?
    /// The request's DPoP proof with its method and URI, when the line has a `"dpop"`.
    package var dpop: DPoPRequest? = nil

    /// Why a JSON input line could not be used.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        /// What was wrong.
        package let description: String
        /// The `id`, when it could be read despite the problem.
        package let idJSON: String?
    }

    /// What one input line holds, by the one rule every face reads lines with: a JSON request
    /// (the line's first non-blank byte is `{`), or a bare token; either way the token is taken by
    /// ``TokenInput``'s rule (whitespace and a `Bearer` scheme around it removed).
    package enum Line {
        /// A request: its token and nonce (valid only inside the closure it is handed to).
        case request(TokenRequest)
        /// A line with nothing but whitespace: not a token.
        case blank
        /// A JSON line that holds no usable request.
        case problem(Problem)
    }

    /// Reads `line` (without its newline) and runs `body` with what it holds.
    package static func withLine<R>(_ line: UnsafeRawBufferPointer, _ body: (Line) -> R) -> R {
        let indent = line.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? line.count
        guard indent < line.count, line[indent] == UInt8(ascii: "{") else {
            guard case .token(let range) = TokenInput.locate(line) else { return body(.blank) }
            return body(
                .request(TokenRequest(token: UnsafeRawBufferPointer(rebasing: line[range]), nonce: nil, idJSON: nil)))
        }
        return withParsed(jsonLine: UnsafeRawBufferPointer(rebasing: line[indent...])) { parsed in
            switch parsed {
            case .failure(let problem): return body(.problem(problem))
            case .success(var request):
                guard case .token(let range) = TokenInput.locate(request.token) else {
                    return body(.problem(Problem(description: "\"token\" holds no token", idJSON: request.idJSON)))
                }
                request.token = UnsafeRawBufferPointer(rebasing: request.token[range])
                return body(.request(request))
            }
        }
    }

    /// The members read: `token`, `nonce`, then Apple's envelope members standing for `token`.
    private static let members: [StaticString] =
        ["token", "nonce"] + NotificationEnvelope.memberNames + ["dpop", "method", "uri"]

    /// Where `dpop`, `method` and `uri` are among ``members``.
    private static let dpopMember = 2 + NotificationEnvelope.memberNames.count

    /// Parses a line that starts with `{` and runs `body` with the request (valid only inside it).
    package static func withParsed<R>(
        jsonLine line: UnsafeRawBufferPointer, _ body: (Result<TokenRequest, Problem>) -> R
    ) -> R {
        var result: R? = nil
        JSONFieldReader.read(line, strings: members, jsonValues: ["id"]) { read in
            switch read {
            case .success(let fields): result = withParsed(jsonLine: line, fields, body)
            case .failure(.invalid(let message)):
                result = body(.failure(Problem(description: "input line is not valid JSON: \(message)", idJSON: nil)))
            case .failure(.notObject):
                result = body(.failure(Problem(description: "input line is not a JSON object", idJSON: nil)))
            }
        }
        return result!
    }

    /// The request the members `read` of `line` make, or why they make none.
    private static func withParsed<R>(
        jsonLine line: UnsafeRawBufferPointer, _ read: JSONFieldReader.Fields,
        _ body: (Result<TokenRequest, Problem>) -> R
    ) -> R {
        let idJSON = read.jsonValue(0).flatMap(read.json)
        guard let token = (read.string(0) ?? read.string(2) ?? read.string(3)).flatMap(read.bytes) else {
            return body(
                .failure(
                    Problem(
                        description:
                            "input object has no string \"token\" (or Apple's \"payload\" or \"signedPayload\")",
                        idJSON: idJSON)))
        }
        let (dpop, dpopProblem) = dpopRequest(read, line: line)
        if let dpopProblem { return body(.failure(Problem(description: dpopProblem, idJSON: idJSON))) }
        var nonce: InputBytes? = nil
        if let field = read.string(1), field.kind != .null {
            guard let value = read.bytes(of: field) else {
                return body(.failure(Problem(description: "\"nonce\" is not a string", idJSON: idJSON)))
            }
            nonce = value
        }
        return token.withBytes(in: line) { tokenBytes in
            guard let nonce else {
                return body(.success(TokenRequest(token: tokenBytes, nonce: nil, idJSON: idJSON, dpop: dpop)))
            }
            return nonce.withBytes(in: line) {
                body(.success(TokenRequest(token: tokenBytes, nonce: $0, idJSON: idJSON, dpop: dpop)))
            }
        }
    }

    /// The line's DPoP request: `nil` without `"dpop"` (a `null` one included); a problem when
    /// `"dpop"`, `"method"` or `"uri"` is not a string, or `"dpop"` comes without the other two.
    private static func dpopRequest(_ read: JSONFieldReader.Fields, line: UnsafeRawBufferPointer) -> (
        DPoPRequest?, problem: String?
    ) {
        guard let proof = read.string(dpopMember), proof.kind != .null else { return (nil, nil) }
        var texts: [String] = []
        for (offset, name) in ["dpop", "method", "uri"].enumerated() {
            guard let field = read.string(dpopMember + offset), field.kind != .null else {
                return (
                    nil,
                    "\"dpop\" is given without \"\(name)\": a proof is checked against the request's method and URI"
                )
            }
            guard let bytes = read.bytes(of: field) else { return (nil, "\"\(name)\" is not a string") }
            texts.append(String(decoding: bytes.bytes(in: line), as: UTF8.self))
        }
        return (DPoPRequest(proof: texts[0], method: texts[1], uri: texts[2]), nil)
    }
}
