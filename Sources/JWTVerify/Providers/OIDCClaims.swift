/// Any OpenID Connect issuer: the generic checks, with `email` and `email_verified` typed.
public struct OIDCClaims: ProviderEmailClaims, Hashable {
    /// The claims as the verifier read them.
    public let base: ProviderClaims

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard token.provider.kind == .oidc else { return nil }
        base = token.provider
    }



    /// Reads and types the OpenID Connect claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        claims.email = try reader.string("email")
        claims.emailVerified = try reader.flag("email_verified")
    }
}
