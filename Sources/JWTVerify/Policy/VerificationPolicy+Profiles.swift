extension VerificationPolicy {
    /// The provider profiles by name, as `--profile` spells them: each one's ``ProviderRules/profileName``.
    public static let profileNames = ProviderRegistry.profiles.map { $0.name }

    /// What a named profile takes besides its name, setting by setting: each
    /// profile reads the settings it declares. Each provider's settings are properties declared
    /// beside its profile (``project``, ``bundleIDs``, ...); the initializer takes the ones of the
    /// providers this library ships.
    public struct ProfileSettings: Sendable {
        /// The values given, by setting name.
        package private(set) var values: [ExactBytes: ProfileSettingValue] = [:]

        /// No setting given.
        package init() {}

        /// The value of `setting`, when given.
        package subscript(setting: ProfileSetting) -> ProfileSettingValue? {
            get { values[ExactBytes(setting.name)] }
            set { values[ExactBytes(setting.name)] = newValue }
        }

        /// Whether `setting` is given (a flag that is on, a list that is not empty).
        package func isGiven(_ setting: ProfileSetting) -> Bool {
            switch self[setting] {
            case nil: false
            case .texts(let texts)?: !texts.isEmpty
            case .files(let files)?: !files.isEmpty
            default: true
            }
        }

        /// Accepted audiences (Apple, Google, OpenID Connect).
        public var audiences: [String] {
            get { self[.audiences]?.texts ?? [] }
            set { self[.audiences] = newValue.isEmpty ? nil : .texts(newValue) }
        }
        /// The issuer (OpenID Connect).
        public var issuer: String? {
            get { self[.issuer]?.text }
            set { self[.issuer] = newValue.map(ProfileSettingValue.text) }
        }

        /// Settings; each unset one is absent.
        public init(
            audiences: [String] = [], issuer: String? = nil, project: String? = nil, projectNumber: String? = nil,
            hostedDomain: String? = nil, authorizedParty: String? = nil,
            acceptMissingNonceWhenUnsupported: Bool = false,
            bundleIDs: [String]? = nil, environment: AppStoreEnvironment? = nil, appAppleID: Int64? = nil,
            appStoreTrust: AppStoreTrust = .appleRootCAG3, onlineChecks: Bool = false
        ) {
            self.audiences = audiences
            self.issuer = issuer
            self.project = project
            self.projectNumber = projectNumber
            self.hostedDomain = hostedDomain
            self.authorizedParty = authorizedParty
            self.acceptMissingNonceWhenUnsupported = acceptMissingNonceWhenUnsupported
            self.bundleIDs = bundleIDs
            self.environment = environment
            self.appAppleID = appAppleID
            self.appStoreTrust = appStoreTrust
            self.onlineChecks = onlineChecks
        }

        /// A string setting's value.
        package func text(_ setting: ProfileSetting) -> String? { self[setting]?.text }
        /// Whether a flag setting is on.
        package func flag(_ setting: ProfileSetting) -> Bool { isGiven(setting) }
        /// Sets or clears a string setting.
        package mutating func set(_ setting: ProfileSetting, text: String?) {
            self[setting] = text.map(ProfileSettingValue.text)
        }
        /// Turns a flag setting on or off.
        package mutating func set(_ setting: ProfileSetting, flag: Bool) { self[setting] = flag ? .flag : nil }
    }

    /// Why a named profile could not be made.
    public struct ProfileError: Error, Sendable, CustomStringConvertible {
        /// What is missing or unknown.
        public let description: String
        /// The file of a ``ProfileSetting/Kind/files`` setting whose bytes were refused, and its
        /// position among that setting's files: the command line names the path.
        package let refusedFile: (setting: ProfileSetting, index: Int)?

        /// An error saying `description`.
        package init(description: String, refusedFile: (setting: ProfileSetting, index: Int)? = nil) {
            self.description = description
            self.refusedFile = refusedFile
        }
    }

    /// The preset a profile name stands for (``profileNames``, matched by bytes), made from
    /// `settings`: what the command line's `--profile` and a service's configuration file
    /// resolve through.
    ///
    /// - Throws: ``ProfileError`` for an unknown name, a profile without what it needs (a
    ///   Firebase project or project number, an OpenID Connect issuer), or a policy that would
    ///   accept no token: no audience for a profile that takes them (Apple, Google, OpenID
    ///   Connect), an empty bundle ID list for App Store data.
    public static func profile(named name: String, _ settings: ProfileSettings) throws(ProfileError)
        -> VerificationPolicy
    {
        try profile(named: name, settings, audienceUnchecked: false)
    }

    /// ``profile(named:_:)``; with `audienceUnchecked`, a profile that takes audiences and is
    /// given none leaves `aud` unchecked (`audiences` `nil`: audits) instead of throwing.
    package static func profile(
        named name: String, _ settings: ProfileSettings, audienceUnchecked: Bool
    ) throws(ProfileError) -> VerificationPolicy {
        guard let profile = ProviderRegistry.profile(named: name) else {
            throw ProfileError(
                description: "no profile is named \(name) (" + profileNames.joined(separator: ", ") + ")")
        }
        for setting in profile.settings
        where profile.requiredSettings(forService: false).contains(setting) && !settings.isGiven(setting) {
            throw ProfileError(description: "the \(name) profile needs \(setting.described)")
        }
        var settings = settings
        let withoutAudience = profile.settings.contains(.audiences) && settings.audiences.isEmpty
        if withoutAudience {
            guard audienceUnchecked else {
                throw ProfileError(
                    description: "the \(name) profile needs an audience: with none it would accept no token")
            }
            settings.audiences = [""]  // a stand-in, replaced by nil below
        }
        var policy = try profile.policy(settings)
        if withoutAudience { policy.audiences = nil }
        return policy
    }
}
