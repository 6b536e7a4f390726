/// A token verified under a ``Profile``: the generic result plus typed provider claims.
public struct ProfileToken: Sendable {
    /// The generically verified token.
    public let token: VerifiedToken
    /// The provider's claims under their JWT names, typed: booleans sent as "true"/"false" are
    /// booleans here, numbers are numbers (`real_user_status`, `auth_time`), nested Firebase
    /// members are spelled `firebase.sign_in_provider` and `firebase.identities`.
    public let claims: [String: JSONValue]
    /// The event of an Apple server-to-server notification.
    public let event: AppleNotificationEvent?
}

/// One decoded Apple server-to-server notification event (the `events` claim).
public struct AppleNotificationEvent: Sendable, Equatable {
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
}

/// Verifies tokens under a provider ``Profile``: the generic checks in their normative order with
/// the profile's issuers and algorithms, then the profile's own rules.
public struct ProfileVerifier: Sendable {
    /// The profile.
    public let profile: Profile
    /// The generic verifier the profile configures.
    public let verifier: Verifier

    /// A verifier for `profile` over `keys`, accepting `audiences` (bundle/Services IDs, client IDs;
    /// for Firebase, omit them: the project is the audience).
    public init(
        profile: Profile, keys: JWKSet, audiences: [String] = [], leeway: Double = Verifier.defaultLeeway,
        maxTokenBytes: Int = Verifier.defaultMaxTokenBytes, clock: @escaping @Sendable () -> Double = Verifier.systemClock
    ) {
        self.profile = profile
        let accepted = profile.project.map { [$0] } ?? audiences
        verifier = Verifier(
            keys: keys, optionalIssuers: profile.issuers, optionalAudiences: accepted, algorithms: profile.algorithms,
            leeway: leeway, maxTokenBytes: maxTokenBytes, clock: clock)
    }

    /// Verifies `token` (for notifications, the JWS or the POST body `{"payload": "<JWS>"}`).
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) throws(VerificationError) -> ProfileToken {
        let jws = profile.kind == .appleNotification ? Self.notificationJWS(token) : token
        let now = time ?? verifier.clock()
        var verified: VerifiedToken
        do {
            verified = try verifier.verify(jws, nonce: nonce, at: now)
        } catch where error.reason == .nonceMissing && profile.acceptsMissingNonceWhenUnsupported {
            let relaxed = try verifier.verify(jws, nonce: nil, at: now)
            guard Self.boolean(relaxed.claim("nonce_supported")) == false else { throw error }
            verified = relaxed
        }
        let (claims, event) = try ProfileRules.apply(profile, to: verified, now: now, leeway: verifier.leeway)
        return ProfileToken(token: verified, claims: claims, event: event)
    }

    /// The JWS inside a notification POST body, or the text itself.
    static func notificationJWS(_ text: String) -> String {
        guard text.first == "{", case .success(let document) = JSONDocument.parse(Array(text.utf8)) else { return text }
        return document.withRoot { $0.member("payload")?.string } ?? text
    }

    /// A JSON boolean, or the strings "true"/"false" (Apple has sent both); `nil` otherwise.
    static func boolean(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let b)?: b
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }
}
