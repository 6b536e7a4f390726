/// Any OpenID Connect issuer: the generic checks, with `email` and `email_verified` typed.
public struct OIDCClaims: ProviderEmailClaims, Hashable {
    /// `email`.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?

    /// Claims with no member present.
    public init() {}

    /// Reads and types the OpenID Connect claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> OIDCClaims {
        var claims = OIDCClaims()
        try readFields(reader, into: &claims)
        return claims
    }
}

extension OIDCClaims: ClaimFieldTable, ProviderClaimMembers {
    /// Each claim once, in name order.
    package static func fields<Visitor: ClaimFieldVisitor>(_ claims: inout Self, _ visitor: inout Visitor)
        throws(VerificationError)
    {
        try visitor.text("email", &claims.email)
        try visitor.flag("email_verified", &claims.emailVerified)
    }

    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) { forEachField(body) }
}
