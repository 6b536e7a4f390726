#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// OAuth 2.0 access tokens in the JWT profile of RFC 9068: `sub`, `client_id` and `jti` required
/// strings, `scope` a space-delimited string, `cnf` the key the token is bound to (RFC 7800).
public struct AccessTokenClaims: ProviderClaimSet, Hashable {
    /// `client_id`: the OAuth client the token was issued to.
    public let clientID: String
    /// `jti`: the token's unique identifier.
    public let jwtID: String
    /// `scope` as sent: space-delimited scopes; `nil` when the token has none.
    public let scope: String?
    /// The scopes `scope` lists, in order (empty without `scope`); split when asked for, so that
    /// verifying a token makes no list.
    public var scopes: [String] { scope.map(Self.split) ?? [] }
    /// `cnf`: the confirmation object (RFC 7800), when present.
    public let cnf: JSONValue?
    /// `cnf.jkt`: the RFC 7638 thumbprint of the key the token is bound to (DPoP, RFC 9449 §6),
    /// when `cnf` has one as a string.
    public let keyThumbprint: String?

    private init(
        clientID: String, jwtID: String, scope: String?, cnf: JSONValue?, keyThumbprint: String?
    ) {
        self.clientID = clientID
        self.jwtID = jwtID
        self.scope = scope
        self.cnf = cnf
        self.keyThumbprint = keyThumbprint
    }

    /// Reads and types the claims RFC 9068 §2.2 requires (`iss`, `exp`, `aud`, `sub`,
    /// `client_id`, `iat`, `jti`; the registered ones' types are the generic checks') and the
    /// optional `scope` and `cnf`.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AccessTokenClaims {
        let payload = reader.payload
        for name: StaticString in ["iss", "exp", "aud", "iat"] where payload.member(name) == nil {
            throw VerificationError(.claimType, detail: "\(name) is missing, and an access token requires it")
        }
        _ = try reader.requireSubject("the resource owner or the client")
        guard let clientID = try reader.string("client_id") else {
            throw VerificationError(.claimType, detail: "client_id is missing, and an access token requires it")
        }
        guard let jwtID = try reader.string("jti") else {
            throw VerificationError(.claimType, detail: "jti is missing, and an access token requires it")
        }
        let scope = try reader.string("scope")
        var cnf: JSONValue? = nil
        var keyThumbprint: String? = nil
        if let node = payload.member("cnf") {
            guard node.kind == .object else { throw VerificationError(.claimType, detail: "cnf is not an object") }
            cnf = node.value
            keyThumbprint = node.member("jkt")?.string
        }
        return AccessTokenClaims(
            clientID: clientID, jwtID: jwtID, scope: scope, cnf: cnf, keyThumbprint: keyThumbprint)
    }

    /// The scopes of a `scope` value: its space-separated parts, empty ones (repeated spaces) left out.
    static func split(_ scope: String) -> [String] {
        scope.utf8.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The scopes of `required` that ``scopes`` lacks (compared as bytes), in order.
    func missing(_ required: [String]) -> [String] {
        required.isEmpty ? [] : required.filter { !grants($0) }
    }

    /// Whether `scope` lists `wanted` (compared as bytes), read in place: no list, no strings.
    func grants(_ wanted: String) -> Bool {
        guard var scope else { return false }
        var wanted = wanted
        return scope.withUTF8 { listed in
            wanted.withUTF8 { name in
                var start = 0
                for end in 0...listed.count where end == listed.count || listed[end] == UInt8(ascii: " ") {
                    // Empty parts (repeated spaces) are no scope, as ``split(_:)`` leaves them out.
                    if end > start, end - start == name.count,
                        let from = listed.baseAddress, let to = name.baseAddress,
                        memcmp(from + start, to, name.count) == 0
                    {
                        return true
                    }
                    start = end + 1
                }
                return false
            }
        }
    }
}

extension AccessTokenClaims: ProviderClaimMembers {
    /// The members in name order (`sub` is the writer's).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        body("client_id", .string(clientID))
        if let cnf { body("cnf", cnf) }
        body("jti", .string(jwtID))
        member("scope", scope, body)
    }
}
