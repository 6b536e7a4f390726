/// The provider claims a policy's rules read, typed: one provider's own claims type
/// (``AppleIdentityClaims``, ``FirebaseClaims``, ``AppStoreClaims``, ...), or none when the policy
/// has no provider rules.
///
/// Booleans Apple sends as "true"/"false" are booleans here, `real_user_status` and `auth_time`
/// are numbers. The registered claims (`iss`, `sub`, `aud`, `exp`, `iat`, `nonce`) are in
/// ``RegisteredClaims``. ``VerifiedToken/provider(as:)`` gives one provider's claims:
/// `token.provider(as: AppleIdentityClaims.self)?.isPrivateEmail`.
public struct ProviderClaims: Sendable, Hashable {
    /// The claims, behind one box per token; `nil`: none read.
    package let box: ProviderClaimsBox?

    /// No claims read.
    public init() { box = nil }

    /// No claims read: a token verified without provider rules.
    public static let none = ProviderClaims()

    /// One provider's claims.
    package init<Claims: ProviderClaimSet & ProviderClaimMembers>(_ claims: Claims) {
        box = TypedProviderClaims(claims)
    }

    /// The claims as `type`, when they are of that type.
    public func claims<Claims: ProviderClaimSet>(as type: Claims.Type) -> Claims? {
        box?.claims(as: type)
    }

    /// The claims as `type` by one class cast: what a provider's rules use on the claims they read.
    package func held<Claims: ProviderClaimSet & ProviderClaimMembers>(_ type: Claims.Type) -> Claims? {
        (box as? TypedProviderClaims<Claims>)?.value
    }

    /// `email`, for the providers that send one (``ProviderEmailClaims``).
    public var email: String? { box?.email }

    /// `email_verified` (sent as `true` or `"true"`), for the providers that send one.
    public var emailVerified: Bool? { box?.emailVerified }

    /// The provider's typed claims under their JWT names (Firebase's nested members spelled
    /// `firebase.sign_in_provider` and `firebase.identities`; App Store data under Apple's names,
    /// with `kind`): the members of the CLI's `claims` object other than `sub` and its alias.
    public var members: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        forEachMember { name, value in members[name.description] = value.canonicalNumber }
        return members
    }

    /// Calls `body` with each typed member present, in name order (``ProviderClaimMembers``).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) { box?.forEachMember(body) }

    /// Writes the typed members and `added` into the open object `out`, in name order; without
    /// claims, `added` alone.
    package func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers) {
        if let box { box.writeMembers(to: out, adding: &added) } else { added.write(before: nil, to: out) }
    }

    /// Calls `body` with each object a record carries beside `claims` (a notification's `event`).
    package func forEachAttachment(_ body: (StaticString, JSONValue) -> Void) { box?.forEachAttachment(body) }

    /// A notification's unique ID, read in the verifier's own pass: `jti` for Sign in with Apple,
    /// `notificationUUID` for the App Store.
    package var notificationID: String? { box?.notificationID }

    /// The report facets these claims count under, with their values (App Store data: kind,
    /// environment, product, notification type).
    package var facets: [(name: String, value: String)] {
        var facets: [(name: String, value: String)] = []
        box?.forEachFacet { facets.append(($0, $1)) }
        return facets
    }

    /// Whether both hold equal claims of the same provider.
    public static func == (lhs: ProviderClaims, rhs: ProviderClaims) -> Bool {
        switch (lhs.box, rhs.box) {
        case (nil, nil): true
        case (let a?, let b?): a.isEqual(to: b)
        default: false
        }
    }

    /// Hashes the claims.
    public func hash(into hasher: inout Hasher) { box?.hash(into: &hasher) }
}

/// One token's provider claims, of a type the box's subclass knows: what ``ProviderClaims`` holds,
/// so that a rule finds its own type by one class cast and records reach the members without
/// naming the provider.
package class ProviderClaimsBox: @unchecked Sendable {
    /// `email`, for the providers that send one.
    var email: String? { nil }
    /// `email_verified`, for the providers that send one.
    var emailVerified: Bool? { nil }
    /// ``ProviderClaimMembers/forEachMember(_:)``.
    func forEachMember(_ body: (StaticString, JSONValue) -> Void) {}
    /// ``ProviderClaimMembers/writeMembers(to:adding:)``.
    func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers) {}
    /// ``ProviderClaimMembers/forEachAttachment(_:)``.
    func forEachAttachment(_ body: (StaticString, JSONValue) -> Void) {}
    /// ``ProviderClaimMembers/notificationID``.
    var notificationID: String? { nil }
    /// ``ProviderClaimMembers/forEachFacet(_:)``.
    func forEachFacet(_ body: (String, String) -> Void) {}
    /// Whether `other` holds equal claims of the same type.
    func isEqual(to other: ProviderClaimsBox) -> Bool { false }
    /// Hashes the claims.
    func hash(into hasher: inout Hasher) {}
    /// The claims as `type`, when they are of that type.
    func claims<Wanted: ProviderClaimSet>(as type: Wanted.Type) -> Wanted? { nil }
}

/// The box of one claims type.
final class TypedProviderClaims<Claims: ProviderClaimSet & ProviderClaimMembers>: ProviderClaimsBox,
    @unchecked Sendable
{
    /// The claims.
    let value: Claims

    init(_ value: Claims) { self.value = value }

    override var email: String? { (value as? any ProviderEmailClaims)?.email }
    override var emailVerified: Bool? { (value as? any ProviderEmailClaims)?.emailVerified }
    override func forEachMember(_ body: (StaticString, JSONValue) -> Void) { value.forEachMember(body) }
    override func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers) {
        value.writeMembers(to: out, adding: &added)
    }
    override func forEachAttachment(_ body: (StaticString, JSONValue) -> Void) { value.forEachAttachment(body) }
    override var notificationID: String? { value.notificationID }
    override func forEachFacet(_ body: (String, String) -> Void) { value.forEachFacet(body) }
    override func isEqual(to other: ProviderClaimsBox) -> Bool {
        guard let other = other as? TypedProviderClaims<Claims> else { return false }
        return other.value == value
    }
    override func claims<Wanted: ProviderClaimSet>(as type: Wanted.Type) -> Wanted? { value as? Wanted }
    override func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(Claims.self))
        hasher.combine(value)
    }
}

extension JSONValue {
    /// A whole number as an integer, as a JSON reader would give it back.
    fileprivate var canonicalNumber: JSONValue {
        guard case .number(let value) = self, value == value.rounded(), abs(value) < 9e15 else { return self }
        return .integer(Int64(value))
    }
}
