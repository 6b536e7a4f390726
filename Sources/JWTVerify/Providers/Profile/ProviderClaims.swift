/// The provider claims a policy's rules read, typed: one case per provider, carrying that
/// provider's own claims; ``none`` when the policy has no provider rules.
///
/// Booleans Apple sends as "true"/"false" are booleans here, `real_user_status` and `auth_time`
/// are numbers. The registered claims (`iss`, `sub`, `aud`, `exp`, `iat`, `nonce`) are in
/// ``RegisteredClaims``. ``VerifiedToken/provider(as:)`` gives one provider's claims directly.
public enum ProviderClaims: Sendable, Hashable {
    /// No provider rules read the payload.
    case none
    /// Sign in with Apple identity tokens.
    case appleIdentityToken(AppleIdentityClaims)
    /// Sign in with Apple server-to-server notifications.
    case appleNotification(AppleNotificationClaims)
    /// Firebase Authentication ID tokens and session cookies (``FirebaseClaims/isSessionCookie``).
    case firebase(FirebaseClaims)
    /// Firebase App Check tokens.
    case firebaseAppCheck(FirebaseAppCheckClaims)
    /// Firebase phone-number verification tokens.
    case firebasePhoneNumber(FirebasePhoneNumberClaims)
    /// Google ID tokens.
    case google(GoogleClaims)
    /// Any OpenID Connect issuer's ID tokens.
    case oidc(OIDCClaims)
    /// App Store signed data (kept behind a box: it is the largest).
    indirect case appStore(AppStoreClaims)

    /// No claims read.
    public init() { self = .none }

    /// Hands the case's claims to `visitor`: the one place that lists the cases.
    package func visit<Visitor: ProviderClaimsVisitor & ~Copyable>(_ visitor: inout Visitor) {
        switch self {
        case .none: break
        case .appleIdentityToken(let claims): visitor.visit(claims)
        case .appleNotification(let claims): visitor.visit(claims)
        case .firebase(let claims): visitor.visit(claims)
        case .firebaseAppCheck(let claims): visitor.visit(claims)
        case .firebasePhoneNumber(let claims): visitor.visit(claims)
        case .google(let claims): visitor.visit(claims)
        case .oidc(let claims): visitor.visit(claims)
        case .appStore(let claims): visitor.visit(claims)
        }
    }

    /// `email`, for the providers that send one (``ProviderEmailClaims``).
    public var email: String? { visited(EmailVisitor()).email }

    /// `email_verified` (sent as `true` or `"true"`), for the providers that send one.
    public var emailVerified: Bool? { visited(EmailVisitor()).verified }

    /// The provider's typed claims under their JWT names (Firebase's nested members spelled
    /// `firebase.sign_in_provider` and `firebase.identities`; App Store data under Apple's names,
    /// with `kind`): the members of the CLI's `claims` object other than `sub` and its alias.
    public var members: [String: JSONValue] { visited(MembersVisitor()).members }

    /// A notification's unique ID, read in the verifier's own pass: `jti` for Sign in with Apple,
    /// `notificationUUID` for the App Store.
    package var notificationID: String? { visited(NotificationIDVisitor()).id }

    /// The report facets these claims count under, with their values (App Store data: kind,
    /// environment, product, notification type).
    package var facets: [(name: String, value: String)] { visited(FacetsVisitor()).facets }

    /// `visitor` after it has visited the case's claims.
    private func visited<Visitor: ProviderClaimsVisitor>(_ visitor: Visitor) -> Visitor {
        var visitor = visitor
        visit(&visitor)
        return visitor
    }
}

/// What can be done with any provider's claims, case by case (``ProviderClaims/visit(_:)``).
package protocol ProviderClaimsVisitor: ~Copyable {
    /// Called with the case's claims.
    mutating func visit<Claims: ProviderClaimSet & ProviderClaimMembers>(_ claims: Claims)
}

private struct EmailVisitor: ProviderClaimsVisitor {
    var email: String?
    var verified: Bool?
    mutating func visit<Claims: ProviderClaimSet & ProviderClaimMembers>(_ claims: Claims) {
        guard let claims = claims as? any ProviderEmailClaims else { return }
        email = claims.email
        verified = claims.emailVerified
    }
}

private struct MembersVisitor: ProviderClaimsVisitor {
    var members: [String: JSONValue] = [:]
    mutating func visit<Claims: ProviderClaimSet & ProviderClaimMembers>(_ claims: Claims) {
        claims.forEachMember { name, value in members[name.description] = value.canonicalNumber }
    }
}

private struct FacetsVisitor: ProviderClaimsVisitor {
    var facets: [(name: String, value: String)] = []
    mutating func visit<Claims: ProviderClaimSet & ProviderClaimMembers>(_ claims: Claims) {
        claims.forEachFacet { name, value in facets.append((name, value)) }
    }
}

private struct NotificationIDVisitor: ProviderClaimsVisitor {
    var id: String?
    mutating func visit<Claims: ProviderClaimSet & ProviderClaimMembers>(_ claims: Claims) {
        id = claims.notificationID
    }
}

extension JSONValue {
    /// A whole number as an integer, as a JSON reader would give it back.
    fileprivate var canonicalNumber: JSONValue {
        guard case .number(let value) = self, value == value.rounded(), abs(value) < 9e15 else { return self }
        return .integer(Int64(value))
    }
}
