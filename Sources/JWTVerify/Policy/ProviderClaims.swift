/// The provider claims a ``ProviderRules`` value reads, typed: booleans Apple sent as
/// "true"/"false" are booleans here, `real_user_status` and `auth_time` are numbers.
///
/// Only the members the policy's rules read are filled; everything else stays `nil`. The
/// registered claims (`iss`, `sub`, `aud`, `exp`, `iat`, `nonce`) are in ``RegisteredClaims``.
public struct ProviderClaims: Sendable, Hashable {
    /// `email`.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?
    /// Apple: `is_private_email` (a private relay address).
    public var isPrivateEmail: Bool?
    /// Apple: `nonce_supported`.
    public var nonceSupported: Bool?
    /// Apple: `real_user_status` (0 unsupported, 1 unknown, 2 likely real).
    public var realUserStatus: Int?
    /// Apple, Firebase: `auth_time`.
    public var authTime: Double?
    /// Apple: `transfer_sub`.
    public var transferSubject: String?
    /// Apple: `c_hash`.
    public var codeHash: String?
    /// Apple: `at_hash`.
    public var accessTokenHash: String?
    /// Apple: `org_id`.
    public var organizationID: String?
    /// Google: `hd`, the hosted domain.
    public var hostedDomain: String?
    /// Google: `azp`, the authorized party.
    public var authorizedParty: String?
    /// Google: `name`.
    public var name: String?
    /// Google: `picture`.
    public var picture: String?
    /// Firebase: `firebase.sign_in_provider`.
    public var signInProvider: String?
    /// Firebase: `firebase.identities`, as sent.
    public var identities: JSONValue?
    /// Apple notifications: the decoded `events` claim.
    public var event: AppleNotificationEvent?

    /// No claims read.
    public init() {}

    /// The claims that are present, under their JWT names (Firebase's nested members spelled
    /// `firebase.sign_in_provider` and `firebase.identities`): the CLI's `claims` object.
    public var members: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        func put(_ name: String, _ value: String?) { if let value { members[name] = .string(value) } }
        func put(_ name: String, _ value: Bool?) { if let value { members[name] = .bool(value) } }
        put("email", email)
        put("email_verified", emailVerified)
        put("is_private_email", isPrivateEmail)
        put("nonce_supported", nonceSupported)
        if let realUserStatus { members["real_user_status"] = .integer(Int64(realUserStatus)) }
        if let authTime {
            members["auth_time"] = authTime == authTime.rounded() && abs(authTime) < 9e15 ? .integer(Int64(authTime)) : .number(authTime)
        }
        put("transfer_sub", transferSubject)
        put("c_hash", codeHash)
        put("at_hash", accessTokenHash)
        put("org_id", organizationID)
        put("hd", hostedDomain)
        put("azp", authorizedParty)
        put("name", name)
        put("picture", picture)
        put("firebase.sign_in_provider", signInProvider)
        if let identities { members["firebase.identities"] = identities }
        return members
    }
}

/// One decoded Apple server-to-server notification event (the `events` claim).
public struct AppleNotificationEvent: Sendable, Hashable {
    /// `email-disabled`, `email-enabled`, `consent-revoked`, `account-delete`, or a newer type as sent.
    public let type: String
    /// The user.
    public let subject: String?
    /// The relay email address, for email events.
    public let email: String?
    /// Whether the email is a private relay address.
    public let isPrivateEmail: Bool?
    /// When it happened, in milliseconds since the epoch.
    public let eventTime: Double?

    /// The event types Apple documents.
    public static let knownTypes: Set<String> = ["email-disabled", "email-enabled", "consent-revoked", "account-delete"]

    /// The event as a JSON object (`type`, `sub`, `email`, `is_private_email`, `event_time`).
    public var members: [String: JSONValue] {
        var members: [String: JSONValue] = ["type": .string(type)]
        if let subject { members["sub"] = .string(subject) }
        if let email { members["email"] = .string(email) }
        if let isPrivateEmail { members["is_private_email"] = .bool(isPrivateEmail) }
        if let eventTime { members["event_time"] = .number(eventTime) }
        return members
    }

    /// Decodes the text of an `events` claim.
    static func parse(_ text: UnsafeRawBufferPointer) throws(VerificationError) -> AppleNotificationEvent {
        let parsed = JSONObjectParser.parse(text, EventReading())
        guard case .success(let event?) = parsed else {
            throw VerificationError(.claimType, detail: "events is not a JSON object with a type")
        }
        return try event.get()
    }

    private struct EventReading: JSONObjectConsumer {
        func consume<Object: JSONObjectReading>(_ object: Object) -> Result<AppleNotificationEvent, VerificationError>? {
            guard let type = object.member("type")?.string else { return nil }
            let isPrivate = object.member("is_private_email")
            if let isPrivate, isPrivate.lenientBool == nil {
                return .failure(VerificationError(.claimType, detail: "events.is_private_email is neither a boolean nor \"true\"/\"false\""))
            }
            return .success(
                AppleNotificationEvent(
                    type: type, subject: object.member("sub")?.string, email: object.member("email")?.string,
                    isPrivateEmail: isPrivate?.lenientBool, eventTime: object.member("event_time")?.number))
        }
    }
}
