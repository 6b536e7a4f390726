/// The provider claims a ``ProviderRules`` value reads, typed: booleans Apple sent as
/// "true"/"false" are booleans here, `real_user_status` and `auth_time` are numbers.
///
/// Only the members the policy's rules read are filled; everything else stays `nil`. The
/// registered claims (`iss`, `sub`, `aud`, `exp`, `iat`, `nonce`) are in ``RegisteredClaims``.
public struct ProviderClaims: Sendable, Hashable {
    /// The members themselves, read and written through the properties below.
    struct Fields: Sendable, Hashable {
        /// The provider whose rules read these claims.
        var kind: ProviderRules.Kind = .none
        var email: String?
        var emailVerified: Bool?
        var isPrivateEmail: Bool?
        var nonceSupported: Bool?
        var realUserStatus: Int?
        var authTime: Double?
        var transferSubject: String?
        var codeHash: String?
        var accessTokenHash: String?
        var organizationID: String?
        var hostedDomain: String?
        var authorizedParty: String?
        var name: String?
        var picture: String?
        var signInProvider: String?
        var identities: JSONValue?
        var event: AppleNotificationEvent?
        /// A Sign in with Apple notification's `jti`.
        var notificationID: String?
        var appStore: AppStoreClaims?
    }

    /// The members behind one immutable box, absent when none was read. The verifier moves a
    /// token's provider claims through several steps and into the verified token; with a box each
    /// move is a pointer and one reference count, not seventeen members and a count per string.
    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage?

    /// The members as a value.
    var fields: Fields { storage?.fields ?? Fields() }

    /// The provider whose rules read these claims (``ProviderRules/Kind/none`` when none did).
    package var kind: ProviderRules.Kind { storage?.fields.kind ?? .none }

    /// No claims read.
    public init() {}

    /// Claims with these members (one allocation, however many are set).
    init(fields: Fields) { storage = Storage(fields) }

    /// Sets members through a new box (setting them one by one is for callers building claims by
    /// hand; the verifier builds ``Fields`` and boxes them once).
    private mutating func change(_ update: (inout Fields) -> Void) {
        var fields = self.fields
        update(&fields)
        storage = Storage(fields)
    }

    /// Whether both hold the same members.
    public static func == (lhs: ProviderClaims, rhs: ProviderClaims) -> Bool { lhs.storage === rhs.storage || lhs.fields == rhs.fields }

    /// Hashes the members.
    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }

    /// `email`.
    public var email: String? {
        get { storage?.fields.email }
        set { change { $0.email = newValue } }
    }
    /// `email_verified`.
    public var emailVerified: Bool? {
        get { storage?.fields.emailVerified }
        set { change { $0.emailVerified = newValue } }
    }
    /// Apple: `is_private_email` (a private relay address).
    public var isPrivateEmail: Bool? {
        get { storage?.fields.isPrivateEmail }
        set { change { $0.isPrivateEmail = newValue } }
    }
    /// Apple: `nonce_supported`.
    public var nonceSupported: Bool? {
        get { storage?.fields.nonceSupported }
        set { change { $0.nonceSupported = newValue } }
    }
    /// Apple: `real_user_status` (0 unsupported, 1 unknown, 2 likely real).
    public var realUserStatus: Int? {
        get { storage?.fields.realUserStatus }
        set { change { $0.realUserStatus = newValue } }
    }
    /// Apple, Firebase: `auth_time`.
    public var authTime: Double? {
        get { storage?.fields.authTime }
        set { change { $0.authTime = newValue } }
    }
    /// Apple: `transfer_sub`.
    public var transferSubject: String? {
        get { storage?.fields.transferSubject }
        set { change { $0.transferSubject = newValue } }
    }
    /// Apple: `c_hash`.
    public var codeHash: String? {
        get { storage?.fields.codeHash }
        set { change { $0.codeHash = newValue } }
    }
    /// Apple: `at_hash`.
    public var accessTokenHash: String? {
        get { storage?.fields.accessTokenHash }
        set { change { $0.accessTokenHash = newValue } }
    }
    /// Apple: `org_id`.
    public var organizationID: String? {
        get { storage?.fields.organizationID }
        set { change { $0.organizationID = newValue } }
    }
    /// Google: `hd`, the hosted domain.
    public var hostedDomain: String? {
        get { storage?.fields.hostedDomain }
        set { change { $0.hostedDomain = newValue } }
    }
    /// Google: `azp`, the authorized party.
    public var authorizedParty: String? {
        get { storage?.fields.authorizedParty }
        set { change { $0.authorizedParty = newValue } }
    }
    /// Google: `name`.
    public var name: String? {
        get { storage?.fields.name }
        set { change { $0.name = newValue } }
    }
    /// Google: `picture`.
    public var picture: String? {
        get { storage?.fields.picture }
        set { change { $0.picture = newValue } }
    }
    /// Firebase: `firebase.sign_in_provider`.
    public var signInProvider: String? {
        get { storage?.fields.signInProvider }
        set { change { $0.signInProvider = newValue } }
    }
    /// Firebase: `firebase.identities`, as sent.
    public var identities: JSONValue? {
        get { storage?.fields.identities }
        set { change { $0.identities = newValue } }
    }
    /// Apple notifications: the decoded `events` claim.
    public var event: AppleNotificationEvent? {
        get { storage?.fields.event }
        set { change { $0.event = newValue } }
    }

    /// A notification's unique ID, read in the verifier's own pass: `jti` for Sign in with Apple,
    /// `notificationUUID` for the App Store.
    package var notificationID: String? { storage?.fields.appStore?.notificationUUID ?? storage?.fields.notificationID }

    /// App Store signed data, typed (``AppStoreClaims``).
    public var appStore: AppStoreClaims? {
        get { storage?.fields.appStore }
        set { change { $0.appStore = newValue } }
    }

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
