/// One line of `verify` input in its JSON form: `{"token": "…", "nonce": "raw"?, "id": …?}`.
///
/// The JSON form carries tokens of any bytes (a bare line cannot hold a newline). Other members
/// are ignored, so annotated sample files (`"expect"`, `"comment"`) can be fed as they are.
package struct TokenRequest: Sendable {
    /// The token's bytes, exactly as the JSON string holds them after unescaping.
    package var token: [UInt8]
    /// The raw nonce for this token, when given.
    package var nonce: String?
    /// The caller's `id`, re-serialised as compact JSON, when given.
    package var idJSON: String?

    /// Why a JSON input line could not be used.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        /// What was wrong.
        package let description: String
        /// The `id`, when it could be read despite the problem.
        package let idJSON: String?
    }

    /// Parses a line that starts with `{`.
    package static func parse(jsonLine line: UnsafeRawBufferPointer) -> Result<TokenRequest, Problem> {
        let document: JSONDocument
        switch JSONDocument.parse(line) {
        case .success(let parsed): document = parsed
        case .failure(let failure):
            return .failure(Problem(description: "input line is not valid JSON: \(failure)", idJSON: nil))
        }
        return document.withRoot { root -> Result<TokenRequest, Problem> in
            guard root.kind == .object else {
                return .failure(Problem(description: "input line is not a JSON object", idJSON: nil))
            }
            let idJSON = root.member("id")?.compactJSON
            guard let token = (root.member("token") ?? root.member("payload"))?.stringBytes else {
                return .failure(Problem(description: "input object has no string \"token\" (or \"payload\")", idJSON: idJSON))
            }
            var nonce: String? = nil
            if let node = root.member("nonce"), node.kind != .null {
                guard let value = node.string else {
                    return .failure(Problem(description: "\"nonce\" is not a string", idJSON: idJSON))
                }
                nonce = value
            }
            return .success(TokenRequest(token: Array(token), nonce: nonce, idJSON: idJSON))
        }
    }
}
