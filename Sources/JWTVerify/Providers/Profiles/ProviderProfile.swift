/// One provider as the faces name it: its profile name, its preset policy, where its keys live,
/// the settings it takes and needs, and how its tokens are judged. Each provider declares one in
/// a file of its own, and ``ProviderRegistry`` lists them: profiles by name, key-set presets, the
/// command line's flags and help, and audit reports look providers up here instead of naming them.
package protocol ProviderProfile: Sendable {
    /// The provider's rules, without their settings.
    static var kind: ProviderRules.Kind { get }
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
    static var subjectAlias: String? { get }
    /// Whether records show the `nonce` claim among the provider's typed claims.
    static var recordsNonce: Bool { get }
}

extension ProviderProfile {
    /// No settings required, unless a profile says otherwise.
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [] }
    /// Keys from a key set, unless a profile says otherwise.
    package static var keyOrigin: ProviderKeyOrigin { .keySet }
    /// `sub` under its own name only, unless a profile says otherwise.
    package static var subjectAlias: String? { nil }
    /// No `nonce` among the typed claims, unless a profile says otherwise.
    package static var recordsNonce: Bool { false }
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
