public import JWTVerify

/// What Apple's token endpoint granted, with the identity token already verified: the answer to a
/// code exchange (``SignInWithAppleClient/exchange(code:redirectURI:nonce:)``) or to a refresh
/// check (``SignInWithAppleClient/checkRefreshToken(_:)``).
public struct AppleTokenGrant: Sendable {
    /// The access token (opaque; Apple's answers never need it for Sign in with Apple).
    public let accessToken: String
    /// `token_type`, `bearer` in Apple's answers.
    public let tokenType: String
    /// Seconds the access token lasts.
    public let expiresIn: Double
    /// The refresh token: keep it to check the user's standing daily and to revoke it when the
    /// account is deleted. Code exchanges always carry one; refresh checks carry none.
    public let refreshToken: String?
    /// The identity token, verified like any other: Apple's key by `kid`, `iss`, `aud` (your
    /// client ID), the times and, for an exchange, the nonce.
    public let identity: VerifiedToken
}

/// A grant prints without its tokens: `description`, `debugDescription`, interpolation and `dump`
/// show the token type, the lifetime and the identity's subject, and `<redacted>` for the access
/// and refresh tokens.
extension AppleTokenGrant: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        Redacted.describe(
            "AppleTokenGrant",
            [
                "tokenType": tokenType, "expiresIn": expiresIn, "accessToken": Redacted.marker,
                "refreshToken": Redacted.marker(for: refreshToken), "subject": identity.claims.subject,
            ])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": Redacted.marker, "tokenType": tokenType, "expiresIn": expiresIn,
                "refreshToken": Redacted.marker(for: refreshToken) as Any, "identity": identity,
            ],
            displayStyle: .struct)
    }
}

/// The outcome of a refresh-token check.
public enum RefreshTokenStatus: Sendable {
    /// The refresh token is good: the user still uses Sign in with Apple with your app. Carries
    /// the new access token and the verified identity token.
    case active(AppleTokenGrant)
    /// Apple answered `invalid_grant`: the user stopped using Sign in with Apple with your app,
    /// the token was revoked, or it expired. Sign the user out.
    case revoked

    /// Whether the token is still good.
    public var isActive: Bool { if case .active = self { true } else { false } }
}

/// A status prints its grant redacted (``AppleTokenGrant``): `active(AppleTokenGrant(...))` or `revoked`.
extension RefreshTokenStatus: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .active(let grant): "active(\(grant))"
        case .revoked: "revoked"
        }
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        switch self {
        case .active(let grant): Mirror(self, children: ["active": grant], displayStyle: .enum)
        case .revoked: Mirror(self, children: [], displayStyle: .enum)
        }
    }
}

/// The nonce a sign-in started with, said explicitly: a sign-in that used no nonce is a choice,
/// never an argument left out.
public enum SignInNonce: Sendable, Hashable {
    /// The raw nonce the app generated; the identity token's `nonce` must be its lowercase hex SHA-256.
    case raw(String)
    /// The authorization request carried no nonce: the identity token's `nonce` is not checked.
    case notUsed
}

/// A raw nonce is what makes an identity token single-use: it prints redacted.
extension SignInNonce: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .raw: "raw(<redacted>)"
        case .notUsed: "notUsed"
        }
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        switch self {
        case .raw: Mirror(self, children: ["raw": Redacted.marker], displayStyle: .enum)
        case .notUsed: Mirror(self, children: [], displayStyle: .enum)
        }
    }
}

/// A user as the recipient team sees them after an app transfer (TN3159), from
/// ``SignInWithAppleClient/exchangeTransferIdentifier(_:)``.
public struct TransferredUser: Sendable, Hashable {
    /// The user's identifier in the recipient team (the new `sub`).
    public let subject: String
    /// The user's email in the recipient team (a new private relay address where the user hides theirs).
    public let email: String?
    /// Whether ``email`` is a private relay address.
    public let isPrivateEmail: Bool?
}

/// Which kind of token a revocation names (`token_type_hint`).
public enum AppleTokenType: String, Sendable, Hashable, CaseIterable {
    /// A refresh token (what a backend keeps, and what account deletion revokes).
    case refreshToken = "refresh_token"
    /// An access token.
    case accessToken = "access_token"
}
