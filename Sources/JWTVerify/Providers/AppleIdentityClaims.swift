/// Sign in with Apple identity tokens: `iat` required, a notification refused, Apple's booleans
/// sent as strings typed, `real_user_status` 0, 1 or 2.
public struct AppleIdentityClaims: ProviderEmailClaims, Hashable {
    /// The claims as the verifier read them.
    public let base: ProviderClaims

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard token.provider.kind == .appleIdentityToken else { return nil }
        base = token.provider
    }

    /// `is_private_email`: a private relay address.
    public var isPrivateEmail: Bool? { base.isPrivateEmail }
    /// `nonce_supported`: whether the device could carry a nonce.
    public var nonceSupported: Bool? { base.nonceSupported }
    /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real.
    public var realUserStatus: Int? { base.realUserStatus }
    /// `auth_time`, in seconds since the epoch.
    public var authTime: Double? { base.authTime }
    /// `transfer_sub`: the user's identifier in the team the app was transferred from.
    public var transferSubject: String? { base.transferSubject }
    /// `c_hash`.
    public var codeHash: String? { base.codeHash }
    /// `at_hash`.
    public var accessTokenHash: String? { base.accessTokenHash }
    /// `org_id`: the organization, for managed Apple IDs.
    public var organizationID: String? { base.organizationID }

    /// Reads and types Apple's claims (the identity-token rules).
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        try reader.requireIssuedAt()
        if reader.payload.member("events") != nil {
            throw VerificationError(.claimType, detail: "this is a server-to-server notification, not an identity token")
        }
        claims.email = try reader.string("email")
        claims.transferSubject = try reader.string("transfer_sub")
        claims.codeHash = try reader.string("c_hash")
        claims.accessTokenHash = try reader.string("at_hash")
        claims.organizationID = try reader.string("org_id")
        claims.emailVerified = try reader.flag("email_verified")
        claims.isPrivateEmail = try reader.flag("is_private_email")
        claims.nonceSupported = try reader.flag("nonce_supported")
        claims.authTime = try reader.number("auth_time")
        if let status = reader.payload.member("real_user_status") {
            guard status.kind == .integer, let value = status.number, (0...2).contains(value) else {
                throw VerificationError(.claimType, detail: "real_user_status is not 0, 1 or 2")
            }
            claims.realUserStatus = Int(value)
        }
    }
}
