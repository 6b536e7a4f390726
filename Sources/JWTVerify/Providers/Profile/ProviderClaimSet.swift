/// A provider's claims, typed: one type per provider (``AppleIdentityClaims``,
/// ``AppleNotificationClaims``, ``AppStoreClaims``, ``FirebaseClaims``, ``FirebaseAppCheckClaims``,
/// ``FirebasePhoneNumberClaims``, ``GoogleClaims``, ``OIDCClaims``, ``AccessTokenClaims``), each
/// held by ``ProviderClaims``, reached from a verified token with ``VerifiedToken/provider(as:)``.
public protocol ProviderClaimSet: Sendable, Hashable {
    /// The claims of a token verified under this provider's rules; `nil` for a token verified under
    /// another provider's (or none).
    init?(_ token: VerifiedToken)
}

extension ProviderClaimSet {
    /// The claims of a token verified under this provider's rules; `nil` for a token verified under
    /// another provider's (or none).
    public init?(_ token: VerifiedToken) {
        guard let claims = token.provider.claims(as: Self.self) else { return nil }
        self = claims
    }
}

extension VerifiedToken {
    /// The token's provider claims as `type`, when the token was verified under that provider's
    /// rules: `token.provider(as: AppleIdentityClaims.self)?.emailVerified`.
    public func provider<Claims: ProviderClaimSet>(as type: Claims.Type) -> Claims? { Claims(self) }
}

/// The claims every OpenID Connect provider may send about the user's address, read the same
/// way for each (`email_verified` sent as `"true"` is `true`).
public protocol ProviderEmailClaims: ProviderClaimSet {
    /// `email`: the user's address (for Apple, possibly a private relay address).
    var email: String? { get }
    /// `email_verified`.
    var emailVerified: Bool? { get }
}

/// What records and reports take from a provider's claims, without naming the provider.
package protocol ProviderClaimMembers {
    /// Calls `body` with each typed member present, under its JWT name, in name order (`sub` and
    /// its alias are the writer's: it has the registered claims).
    func forEachMember(_ body: (StaticString, JSONValue) -> Void)
    /// Writes the typed members and `added` into the open object `out`, in name order (what
    /// ``forEachMember(_:)`` lists, with the record's own members among them).
    func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers)
    /// Objects a record carries beside `claims` (a notification's `event`), in name order.
    func forEachAttachment(_ body: (StaticString, JSONValue) -> Void)
    /// A notification's unique ID; `nil` for other tokens.
    var notificationID: String? { get }
    /// The report facets (``ProviderProfile/reportFacets``) these claims count under, with the
    /// value they count as (`by_kind`: `transaction`).
    func forEachFacet(_ body: (String, String) -> Void)
}

extension ProviderClaimMembers {
    /// No attachments, unless the claims say otherwise.
    package func forEachAttachment(_ body: (StaticString, JSONValue) -> Void) {}
    /// No notification ID, unless the claims say otherwise.
    package var notificationID: String? { nil }
    /// No report facets, unless the claims say otherwise.
    package func forEachFacet(_ body: (String, String) -> Void) {}
}

/// One optional member for ``ProviderClaimMembers/forEachMember(_:)``.
@inline(__always)
func member(_ name: StaticString, _ value: String?, _ body: (StaticString, JSONValue) -> Void) {
    if let value { body(name, .string(value)) }
}

/// One optional member for ``ProviderClaimMembers/forEachMember(_:)``.
@inline(__always)
func member(_ name: StaticString, _ value: Bool?, _ body: (StaticString, JSONValue) -> Void) {
    if let value { body(name, .bool(value)) }
}

/// One optional member for ``ProviderClaimMembers/forEachMember(_:)``.
@inline(__always)
func member(_ name: StaticString, _ value: Double?, _ body: (StaticString, JSONValue) -> Void) {
    if let value { body(name, .number(value)) }
}
