/// Any OpenID Connect issuer: the generic checks, with `email` and `email_verified` typed.
public struct OIDCClaims: ProviderEmailClaims, Hashable {
    /// `email`.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?

    /// Claims with no member present.
    public init() {}

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard case .oidc(let claims) = token.provider else { return nil }
        self = claims
    }

    /// Reads and types the OpenID Connect claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> OIDCClaims {
        var claims = OIDCClaims()
        claims.email = try reader.string("email")
        claims.emailVerified = try reader.flag("email_verified")
        return claims
    }
}

extension OIDCClaims: ProviderClaimMembers {
    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        member("email", email, body)
        member("email_verified", emailVerified, body)
    }
}
