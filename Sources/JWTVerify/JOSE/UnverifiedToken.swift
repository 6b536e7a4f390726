/// What can be read from a token without trusting it: header `alg`/`kid` and a few claims.
///
/// Used to describe rejected tokens (and by `inspect`): nothing here has been verified, and each
/// field is filled only when its segment decodes and the member has the expected JSON type.
package struct UnverifiedToken: Sendable {
    /// Header `alg`, when it is a string.
    package var algorithm: String?
    /// Header `kid`, when it is a string.
    package var keyID: String?
    /// Header `typ`, when it is a string.
    package var type: String?
    /// The registered claims that had the right type (`exp` may be absent here).
    package var claims = RegisteredClaims()
    /// Whether `aud` was written as an array.
    package var audienceIsArray: Bool { claims.audienceIsArray }
    /// The decoded header JSON, when it is valid JSON.
    package var header: JSONValue?
    /// The decoded payload JSON, when it is valid JSON.
    package var payload: JSONValue?

    /// Reads what it can from `token` (nothing at all beyond `limit` octets).
    package init(peeking token: UnsafeRawBufferPointer, limit: Int = 1 << 20) {
        guard token.count <= limit, case .success(let jws) = CompactJWS.split(token) else { return }
        if let document = Self.document(UnsafeRawBufferPointer(rebasing: token[jws.header])) {
            document.withRoot { root in
                guard root.kind == .object else { return }
                header = root.value
                algorithm = root.member("alg")?.string
                keyID = root.member("kid")?.string
                type = root.member("typ")?.string
            }
        }
        if let document = Self.document(UnsafeRawBufferPointer(rebasing: token[jws.payload])) {
            document.withRoot { root in
                guard root.kind == .object else { return }
                payload = root.value
                claims = RegisteredClaims.readLeniently(root)
            }
        }
    }

    /// Reads a token given as bytes.
    package init(peeking token: [UInt8]) {
        self = token.withUnsafeBytes { UnverifiedToken(peeking: $0) }
    }

    private static func document(_ segment: UnsafeRawBufferPointer) -> JSONDocument? {
        guard let decoded = Base64URL.decode(segment), case .success(let document) = JSONDocument.parse(decoded) else {
            return nil
        }
        return document
    }
}
