/// A provider's own rules, on top of the generic checks. Part of a ``VerificationPolicy``.
///
/// The rules read the payload the verifier already parsed (never a second parse) and run after
/// the generic claim checks, as the last step of the same walk; their failures use the stable
/// reasons (`claim_type`, `issued_in_future`, `hosted_domain_mismatch`, `audience_mismatch`).
/// Each provider's rules and typed claims live in a file of their own (`Providers/`); a value of
/// this type names one provider and its settings, and new providers can be added without
/// breaking callers (it is a struct, not an enum to switch over).
public struct ProviderRules: Sendable, Hashable {
    /// Which provider, without its settings.
    package enum Kind: Sendable, Hashable {
        case none, appleIdentityToken, appleNotification, firebase, firebaseSession, firebaseAppCheck, firebasePhoneNumber, google, oidc, appStore
    }

    /// The provider and its settings.
    enum Backing: Sendable, Hashable {
        case none
        case appleIdentityToken(acceptMissingNonceWhenUnsupported: Bool)
        case appleNotification
        case firebase(project: String)
        case firebaseSession(project: String)
        case firebaseAppCheck(projectNumber: String, project: String?)
        case firebasePhoneNumber(project: String)
        case google(hostedDomain: String?, authorizedParty: String?)
        case oidc
        case appStore(AppStoreSettings)
    }

    /// What the App Store rules compare with.
    struct AppStoreSettings: Sendable, Hashable {
        /// Accepted bundle IDs; `nil`: not checked (audits).
        var bundleIDs: [String]?
        var environment: AppStoreEnvironment?
        var appAppleID: Int64?
        var trust: AppStoreTrust
        /// OCSP for the leaf and the intermediate, and the chain judged at the current time.
        var onlineChecks = false
    }

    let backing: Backing

    private init(_ backing: Backing) { self.backing = backing }

    /// No provider rules: only the generic checks.
    public static let none = ProviderRules(.none)
    /// Sign in with Apple identity tokens (see ``VerificationPolicy/appleIdentityToken(audiences:acceptMissingNonceWhenUnsupported:nonce:)``).
    public static func appleIdentityToken(acceptMissingNonceWhenUnsupported: Bool = false) -> ProviderRules {
        ProviderRules(.appleIdentityToken(acceptMissingNonceWhenUnsupported: acceptMissingNonceWhenUnsupported))
    }
    /// Apple server-to-server notifications (see ``VerificationPolicy/appleNotification(audiences:)``).
    public static let appleNotification = ProviderRules(.appleNotification)
    /// Firebase Authentication ID tokens of a project (see ``VerificationPolicy/firebase(project:)``).
    public static func firebase(project: String) -> ProviderRules { ProviderRules(.firebase(project: project)) }
    /// Firebase Authentication session cookies of a project (see ``VerificationPolicy/firebaseSessionCookie(project:)``).
    public static func firebaseSessionCookie(project: String) -> ProviderRules { ProviderRules(.firebaseSession(project: project)) }
    /// Firebase App Check tokens (see ``VerificationPolicy/firebaseAppCheck(projectNumber:project:)``).
    public static func firebaseAppCheck(projectNumber: String, project: String? = nil) -> ProviderRules {
        ProviderRules(.firebaseAppCheck(projectNumber: projectNumber, project: project))
    }
    /// Firebase phone-number verification tokens (see ``VerificationPolicy/firebasePhoneNumber(project:)``).
    public static func firebasePhoneNumber(project: String) -> ProviderRules { ProviderRules(.firebasePhoneNumber(project: project)) }
    /// Google ID tokens (see ``VerificationPolicy/google(audiences:hostedDomain:authorizedParty:)``).
    public static func google(hostedDomain: String? = nil, authorizedParty: String? = nil) -> ProviderRules {
        ProviderRules(.google(hostedDomain: hostedDomain, authorizedParty: authorizedParty))
    }
    /// App Store signed data (see ``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``);
    /// `bundleIDs: nil` checks no bundle ID (for audits of captured data, never for a service).
    public static func appStore(
        bundleIDs: [String]?, environment: AppStoreEnvironment? = nil, appAppleID: Int64? = nil, trust: AppStoreTrust = .appleRootCAG3,
        onlineChecks: Bool = false
    ) -> ProviderRules {
        ProviderRules(
            .appStore(
                AppStoreSettings(bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID, trust: trust, onlineChecks: onlineChecks)))
    }
    /// Generic OpenID Connect ID tokens (see ``VerificationPolicy/oidc(issuer:audiences:algorithms:)``).
    public static let oidc = ProviderRules(.oidc)

    /// Which provider these rules are for.
    package var kind: Kind {
        switch backing {
        case .none: .none
        case .appleIdentityToken: .appleIdentityToken
        case .appleNotification: .appleNotification
        case .firebase: .firebase
        case .firebaseSession: .firebaseSession
        case .firebaseAppCheck: .firebaseAppCheck
        case .firebasePhoneNumber: .firebasePhoneNumber
        case .google: .google
        case .oidc: .oidc
        case .appStore: .appStore
        }
    }

    /// The name `--profile` spells these rules with (`nil` for ``none``).
    public var profileName: String? { ProviderRegistry.profile(for: kind)?.name }

    /// Header parameters the provider always sends, so a token without them is not its own:
    /// App Check tokens carry `typ`; phone-number tokens carry `typ` and `kid`.
    var headerRequirements: JOSEHeader.Requirements {
        switch backing {
        case .firebaseAppCheck: JOSEHeader.Requirements(type: true, keyID: false)
        case .firebasePhoneNumber: JOSEHeader.Requirements(type: true, keyID: true)
        default: JOSEHeader.Requirements()
        }
    }

    /// The App Store settings, when these are the App Store's rules: the one policy whose keys come
    /// from the token's `x5c` chain (to a pinned root), not from a key set.
    var appStoreSettings: AppStoreSettings? {
        if case .appStore(let settings) = backing { return settings }
        return nil
    }

    /// Whether `exp` is required: App Store signed data has none (its certificates expire instead).
    var requiresExpiration: Bool { kind != .appStore }

    /// Whether a missing `nonce` is accepted when the token says `nonce_supported: false`.
    var acceptsMissingNonceWhenUnsupported: Bool {
        if case .appleIdentityToken(let accepts) = backing { return accepts }
        return false
    }

    /// The provider's claims of `payload`, typed, or the type rule they break. Time rules wait for
    /// ``check(_:now:leeway:)``, which runs after the generic checks.
    func read<Object: JSONObjectReading>(_ payload: Object) -> Result<ProviderClaims, VerificationError> {
        if case .none = backing { return .success(ProviderClaims()) }
        var claims = ProviderClaims.Fields()
        claims.kind = kind
        let reader = ProviderClaimReader(payload: payload)
        do throws(VerificationError) {
            switch backing {
            case .none: break
            case .appleIdentityToken: try AppleIdentityClaims.read(reader, into: &claims)
            case .appleNotification: try AppleNotificationClaims.read(reader, into: &claims)
            case .firebase, .firebaseSession: try FirebaseClaims.read(reader, into: &claims)
            case .firebaseAppCheck: try FirebaseAppCheckClaims.read(reader, into: &claims)
            case .firebasePhoneNumber: try FirebasePhoneNumberClaims.read(reader, into: &claims)
            case .google: try GoogleClaims.read(reader, into: &claims)
            case .appStore: claims.appStore = try AppStoreClaims(reading: payload)
            case .oidc: try OIDCClaims.read(reader, into: &claims)
            }
        } catch {
            return .failure(error)
        }
        // Moved into the box, not copied (a copy costs a reference count per string).
        return .success(ProviderClaims(fields: exchange(&claims, with: ProviderClaims.Fields())))
    }

    /// The rules that compare claims with configuration or with the time, in a fixed order.
    func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        switch backing {
        case .firebase, .firebaseSession: FirebaseClaims.check(claims, now: now, leeway: leeway)
        case .google(let hostedDomain, let authorizedParty):
            GoogleClaims.check(claims, hostedDomain: hostedDomain, authorizedParty: authorizedParty)
        case .appStore(let settings):
            claims.appStore?.check(bundleIDs: settings.bundleIDs, environment: settings.environment, appAppleID: settings.appAppleID)
        default: nil
        }
    }
}

/// What every provider's reading takes from a payload: typed members, or the type rule broken.
struct ProviderClaimReader<Object: JSONObjectReading> {
    let payload: Object

    /// A string member, when present.
    func string(_ name: StaticString) throws(VerificationError) -> String? {
        guard let node = payload.member(name) else { return nil }
        guard let value = node.string else { throw VerificationError(.claimType, detail: "\(name) is not a string") }
        return value
    }

    /// A boolean member, when present: `true`/`false`, or the strings `"true"`/`"false"`.
    func flag(_ name: StaticString) throws(VerificationError) -> Bool? {
        guard let node = payload.member(name) else { return nil }
        guard let value = node.lenientBool else {
            throw VerificationError(.claimType, detail: "\(name) is neither a boolean nor \"true\"/\"false\"")
        }
        return value
    }

    /// A number member, when present.
    func number(_ name: StaticString) throws(VerificationError) -> Double? {
        guard let node = payload.member(name) else { return nil }
        guard let value = node.number else { throw VerificationError(.claimType, detail: "\(name) is not a number") }
        return value
    }

    /// `sub`, which must be a non-empty string (what it names is `meaning`, for the detail).
    func requireSubject(_ meaning: String) throws(VerificationError) {
        guard let subject = payload.member("sub")?.string, !subject.isEmpty else {
            throw VerificationError(.claimType, detail: "sub (\(meaning)) must be a non-empty string")
        }
    }

    /// `iat`, which the provider always sends.
    func requireIssuedAt() throws(VerificationError) {
        guard payload.member("iat") != nil else { throw VerificationError(.claimType, detail: "iat is missing") }
    }
}
