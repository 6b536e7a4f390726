/// A provider's claims, typed: one type per provider (``AppleIdentityClaims``,
/// ``AppleNotificationClaims``, ``FirebaseClaims``, ``GoogleClaims``, ``OIDCClaims``), reached from
/// a verified token with ``VerifiedToken/provider(as:)``.
public protocol ProviderClaimSet: Sendable {
    /// The claims of a token verified under this provider's rules; `nil` for a token verified under
    /// another provider's (or none).
    init?(_ token: VerifiedToken)
}

extension VerifiedToken {
    /// The token's provider claims as `type`, when the token was verified under that provider's
    /// rules: `token.provider(as: AppleIdentityClaims.self)?.emailVerified`.
    public func provider<Claims: ProviderClaimSet>(as type: Claims.Type) -> Claims? { Claims(self) }
}

/// The claims every OpenID Connect provider may send about the user's address, read the same
/// way for each (`email_verified` sent as `"true"` is `true`).
public protocol ProviderEmailClaims: ProviderClaimSet {
    /// The claims as the verifier read them.
    var base: ProviderClaims { get }
}

extension ProviderEmailClaims {
    /// `email`: the user's address (for Apple, possibly a private relay address).
    public var email: String? { base.email }
    /// `email_verified`.
    public var emailVerified: Bool? { base.emailVerified }
}
