package import JWTVerify

/// One line of `verify` input (and of `serve`'s `/verify` body) in its JSON form:
/// `{"token": "…", "nonce": "raw"?, "id": …?}`.
///
/// The JSON form carries tokens of any bytes (a bare line cannot hold a newline). Other members
/// are ignored, so annotated sample files (`"expect"`, `"comment"`) can be fed as they are;
/// `"payload"` may stand for `"token"`, as in Apple's notification bodies. Ordinary lines are read
/// by the fast scanner with jansson as the arbiter, and the token and nonce are borrowed from the
/// line, not copied.
package struct TokenRequest {
    /// The token's bytes, exactly as the JSON string holds them after unescaping.
    package var token: UnsafeRawBufferPointer
    /// The raw nonce for this token, when given.
    package var nonce: UnsafeRawBufferPointer?
    /// The caller's `id` as compact JSON, when given.
    package var idJSON: String?

    /// Why a JSON input line could not be used.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        /// What was wrong.
        package let description: String
        /// The `id`, when it could be read despite the problem.
        package let idJSON: String?
    }

    /// Parses a line that starts with `{` and runs `body` with the request (valid only inside it).
    package static func withParsed<R>(jsonLine line: UnsafeRawBufferPointer, _ body: (Result<TokenRequest, Problem>) -> R) -> R {
        withoutActuallyEscaping(body) { body in
            switch JSONObjectParser.parse(line, Reading(body: body)) {
            case .success(let result): return result
            case .failure(.invalid(let message)):
                return body(.failure(Problem(description: "input line is not valid JSON: \(message)", idJSON: nil)))
            case .failure(.notObject):
                return body(.failure(Problem(description: "input line is not a JSON object", idJSON: nil)))
            }
        }
    }

    private struct Reading<R>: JSONObjectConsumer {
        let body: (Result<TokenRequest, Problem>) -> R
        func consume<Object: JSONObjectReading>(_ object: Object) -> R {
            let idJSON = object.member("id")?.value.description
            guard let token = (object.member("token") ?? object.member("payload"))?.stringBytes else {
                return body(.failure(Problem(description: "input object has no string \"token\" (or \"payload\")", idJSON: idJSON)))
            }
            var nonce: UnsafeRawBufferPointer? = nil
            if let node = object.member("nonce"), node.kind != .null {
                guard let value = node.stringBytes else {
                    return body(.failure(Problem(description: "\"nonce\" is not a string", idJSON: idJSON)))
                }
                nonce = value
            }
            return body(.success(TokenRequest(token: token, nonce: nonce, idJSON: idJSON)))
        }
    }
}
