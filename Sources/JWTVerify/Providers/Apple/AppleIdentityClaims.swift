/// Sign in with Apple identity tokens: `iat` required, a notification refused, Apple's booleans
/// sent as strings typed, `real_user_status` 0, 1 or 2.
public struct AppleIdentityClaims: ProviderEmailClaims, Hashable {
    /// `email`: the user's address, possibly a private relay address.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?
    /// `is_private_email`: a private relay address.
    public var isPrivateEmail: Bool?
    /// `nonce_supported`: whether the device could carry a nonce.
    public var nonceSupported: Bool?
    /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real.
    public var realUserStatus: Int?
    /// `auth_time`, in seconds since the epoch.
    public var authTime: Double?
    /// `transfer_sub`: the user's identifier in the team the app was transferred from.
    public var transferSubject: String?
    /// `c_hash`.
    public var codeHash: String?
    /// `at_hash`.
    public var accessTokenHash: String?
    /// `org_id`: the organization, for managed Apple IDs.
    public var organizationID: String?

    /// Claims with no member present.
    public init() {}

    /// Reads and types Apple's claims (the identity-token rules).
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AppleIdentityClaims {
        try reader.requireIssuedAt()
        if reader.payload.member("events") != nil {
            throw VerificationError(
                .claimType, detail: "this is a server-to-server notification, not an identity token")
        }
        var claims = AppleIdentityClaims()
        try readFields(reader, into: &claims)
        return claims
    }
}

extension AppleIdentityClaims: ClaimFieldTable, ProviderClaimMembers {
    /// Each claim once, in name order.
    package static func fields<Visitor: ClaimFieldVisitor>(_ claims: inout Self, _ visitor: inout Visitor)
        throws(VerificationError)
    {
        try visitor.text("at_hash", &claims.accessTokenHash)
        try visitor.number("auth_time", &claims.authTime)
        try visitor.text("c_hash", &claims.codeHash)
        try visitor.text("email", &claims.email)
        try visitor.flag("email_verified", &claims.emailVerified)
        try visitor.flag("is_private_email", &claims.isPrivateEmail)
        try visitor.flag("nonce_supported", &claims.nonceSupported)
        try visitor.text("org_id", &claims.organizationID)
        try visitor.integer("real_user_status", &claims.realUserStatus, in: 0...2)
        try visitor.text("transfer_sub", &claims.transferSubject)
    }

    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) { forEachField(body) }
}
