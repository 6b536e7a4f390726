/// One provider as one unit: as the faces name it (its profile name, preset policy, key source,
/// settings, what records show) and, as a value with its settings, its rules (header
/// requirements, typed claims, checks, evaluation time). Each provider declares one in a file of
/// its own, and ``ProviderRegistry`` lists them; a ``ProviderRules`` holds one value. The
/// pipeline, profiles by name, key-set presets, the command line's flags and help, records and
/// audit reports look providers up here instead of naming them.
package protocol ProviderProfile: Sendable, Hashable {
    /// The name `--profile` and configuration files spell it with.
    static var name: String { get }
    /// Where the provider publishes its keys, as a key-set preset (`--jwks NAME`); `nil` when the
    /// keys are the caller's (OpenID Connect) or come from each token (App Store signed data).
    static var keySet: (preset: String, source: KeySetSource)? { get }
    /// Where each token's key comes from.
    static var keyOrigin: ProviderKeyOrigin { get }
    /// The settings the profile takes besides its name.
    static var settings: Set<ProfileSetting> { get }
    /// The settings it cannot do without; with `forService`, those a service's check needs too.
    static func requiredSettings(forService: Bool) -> Set<ProfileSetting>
    /// The preset, made from settings that hold every required one.
    static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy
    /// The name records give `sub` besides its own, where the provider calls it otherwise
    /// (`uid`, `app_id`, `phone_number`).
    static var subjectAlias: StaticString? { get }
    /// Whether records show the `nonce` claim among the provider's typed claims.
    static var recordsNonce: Bool { get }
    /// The audit report's breakdowns of the provider's verified tokens, in report order, with their
    /// titles (the claims say what each token counts as: ``ProviderClaimMembers/forEachFacet(_:)``).
    static var reportFacets: [(name: String, title: String)] { get }
    /// The claim whose instant the provider's tokens are judged at unless a time is given
    /// (``evaluationInstant(_:)``), for people: `signedDate`; `nil` when judged by the clock.
    static var evaluationClaim: String? { get }

    /// Header parameters the provider always sends, so a token without them is not its own.
    var headerRequirements: HeaderRequirements { get }
    /// Whether `exp` is required (App Store signed data has none: its certificates expire).
    var requiresExpiration: Bool { get }
    /// Where a key comes from each token's `x5c` chain: the roots it must reach, and whether
    /// revocation is checked online (and the chain judged now).
    var certificateTrust: (roots: AppStoreTrust, onlineChecks: Bool)? { get }
    /// Whether a service receives these tokens as notifications (`POST /notifications`).
    var receivesNotifications: Bool { get }
    /// Whether the verifier also takes the token inside Apple's `{"payload"}` or
    /// `{"signedPayload"}` envelope.
    var readsNotificationEnvelope: Bool { get }
    /// The provider's claims of a payload, typed, or the type rule they break. Time rules wait for
    /// ``check(_:now:leeway:)``, which runs after the generic checks.
    func read<Object: JSONObjectReading>(_ reader: ProviderClaimReader<Object>) throws(VerificationError)
        -> ProviderClaims
    /// ``read(_:)`` of an object of the fast scanner, and of jansson: requirements of their own, so
    /// that each provider's reading is compiled for the two object types (a generic requirement
    /// called through the protocol would run unspecialized, on every token).
    func read(scanned payload: FlatJSONObject) -> Result<ProviderClaims, VerificationError>
    func read(parsed payload: JSONNode) -> Result<ProviderClaims, VerificationError>
    /// Whether a token without a `nonce` passes although the call gave a raw nonce.
    func excusesMissingNonce(_ claims: ProviderClaims) -> Bool
    /// The rules that compare claims with the settings or with the time, in a fixed order.
    func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError?
    /// The instant (seconds since the epoch) the token is judged at unless the call fixes one;
    /// `nil` for the clock's.
    func evaluationInstant(_ claims: ProviderClaims) -> Double?
    /// The claims once what they carry is verified too (an App Store notification's nested
    /// signed data), or that verification's failure.
    func complete(_ claims: ProviderClaims, verifier: Verifier, time: EvaluationTime) -> Result<
        ProviderClaims, VerificationError
    >
}

extension ProviderProfile {
    /// No settings required, unless a profile says otherwise.
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [] }
    /// Keys from a key set, unless a profile says otherwise.
    package static var keyOrigin: ProviderKeyOrigin { .keySet }
    /// `sub` under its own name only, unless a profile says otherwise.
    package static var subjectAlias: StaticString? { nil }
    /// No `nonce` among the typed claims, unless a profile says otherwise.
    package static var recordsNonce: Bool { false }
    /// No breakdowns of its own, unless a profile says otherwise.
    package static var reportFacets: [(name: String, title: String)] { [] }
    /// Judged by the clock, unless a profile says otherwise.
    package static var evaluationClaim: String? { nil }
    /// No header parameter required beyond `alg`, unless a profile says otherwise.
    package var headerRequirements: HeaderRequirements { HeaderRequirements() }
    /// `exp` required, unless a profile says otherwise.
    package var requiresExpiration: Bool { true }
    /// Keys from a key set, unless a profile says otherwise.
    package var certificateTrust: (roots: AppStoreTrust, onlineChecks: Bool)? { nil }
    /// Not notifications, unless a profile says otherwise.
    package var receivesNotifications: Bool { false }
    /// No envelope, unless a profile says otherwise.
    package var readsNotificationEnvelope: Bool { false }
    /// The generic reading, compiled for the fast scanner's objects.
    package func read(scanned payload: FlatJSONObject) -> Result<ProviderClaims, VerificationError> {
        do throws(VerificationError) { return .success(try read(ProviderClaimReader(payload: payload))) } catch {
            return .failure(error)
        }
    }
    /// The generic reading, compiled for jansson's objects.
    package func read(parsed payload: JSONNode) -> Result<ProviderClaims, VerificationError> {
        do throws(VerificationError) { return .success(try read(ProviderClaimReader(payload: payload))) } catch {
            return .failure(error)
        }
    }
    /// A missing nonce is never excused, unless a profile says otherwise.
    package func excusesMissingNonce(_ claims: ProviderClaims) -> Bool { false }
    /// No rules beyond the generic checks, unless a profile says otherwise.
    package func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? { nil }
    /// The clock's time, unless a profile says otherwise.
    package func evaluationInstant(_ claims: ProviderClaims) -> Double? { nil }
    /// Nothing further to verify, unless a profile says otherwise.
    package func complete(_ claims: ProviderClaims, verifier: Verifier, time: EvaluationTime) -> Result<
        ProviderClaims, VerificationError
    > {
        .success(claims)
    }
}

/// Where a provider's token keys come from.
package enum ProviderKeyOrigin: Sendable, Equatable {
    /// A key set: the preset's, or the caller's (`--jwks`).
    case keySet
    /// Each token's `x5c` chain to pinned roots (App Store signed data): no key set at all, and
    /// the token judged at its own `signedDate` unless a time is given.
    case certificateChain
}

/// A setting a profile may take (``VerificationPolicy/ProfileSettings``).
package enum ProfileSetting: String, Sendable, Hashable, CaseIterable {
    case audiences, issuer, project, projectNumber, hostedDomain, authorizedParty, acceptMissingNonceWhenUnsupported
    case bundleIDs, environment, appAppleID, appStoreTrust, onlineChecks

    /// Whether `settings` gives this one.
    package func isGiven(in settings: VerificationPolicy.ProfileSettings) -> Bool {
        switch self {
        case .audiences: !settings.audiences.isEmpty
        case .issuer: settings.issuer != nil
        case .project: settings.project != nil
        case .projectNumber: settings.projectNumber != nil
        case .hostedDomain: settings.hostedDomain != nil
        case .authorizedParty: settings.authorizedParty != nil
        case .acceptMissingNonceWhenUnsupported: settings.acceptMissingNonceWhenUnsupported
        case .bundleIDs: !(settings.bundleIDs ?? []).isEmpty
        case .environment: settings.environment != nil
        case .appAppleID: settings.appAppleID != nil
        case .appStoreTrust: settings.appStoreTrust != .appleRootCAG3
        case .onlineChecks: settings.onlineChecks
        }
    }

    /// The setting in words, for errors ("a project", "a project number", ...).
    package var described: String {
        switch self {
        case .audiences: "an audience"
        case .issuer: "an issuer"
        case .project: "a project"
        case .projectNumber: "a project number"
        case .hostedDomain: "a hosted domain"
        case .authorizedParty: "an authorized party"
        case .acceptMissingNonceWhenUnsupported: "accepting a missing nonce when unsupported"
        case .bundleIDs: "a bundle ID"
        case .environment: "an environment"
        case .appAppleID: "an app Apple ID"
        case .appStoreTrust: "roots of its own"
        case .onlineChecks: "online checks"
        }
    }
}
