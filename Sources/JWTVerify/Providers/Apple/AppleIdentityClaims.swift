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

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard case .appleIdentityToken(let claims) = token.provider else { return nil }
        self = claims
    }

    /// Reads and types Apple's claims (the identity-token rules).
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AppleIdentityClaims {
        try reader.requireIssuedAt()
        if reader.payload.member("events") != nil {
            throw VerificationError(
                .claimType, detail: "this is a server-to-server notification, not an identity token")
        }
        var claims = AppleIdentityClaims()
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
        return claims
    }
}

extension AppleIdentityClaims: ProviderClaimMembers {
    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        member("at_hash", accessTokenHash, body)
        member("auth_time", authTime, body)
        member("c_hash", codeHash, body)
        member("email", email, body)
        member("email_verified", emailVerified, body)
        member("is_private_email", isPrivateEmail, body)
        member("nonce_supported", nonceSupported, body)
        member("org_id", organizationID, body)
        member("real_user_status", realUserStatus.map(Double.init), body)
        member("transfer_sub", transferSubject, body)
    }
}
