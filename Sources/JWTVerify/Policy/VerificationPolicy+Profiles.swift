extension VerificationPolicy {
    /// The provider profiles by name, as `--profile` spells them: each one's ``ProviderRules/profileName``.
    public static let profileNames = ProviderRegistry.profiles.map { $0.name }

    /// What a named profile takes besides its name; each profile reads the settings it needs.
    public struct ProfileSettings: Sendable {
        /// Accepted audiences (Apple, Google, OpenID Connect).
        public var audiences: [String]
        /// The issuer (OpenID Connect).
        public var issuer: String?
        /// The Firebase project (its ID).
        public var project: String?
        /// The Firebase project's number (App Check).
        public var projectNumber: String?
        /// Google: the required `hd`, and the required `azp` when the token has one.
        public var hostedDomain: String?
        public var authorizedParty: String?
        /// Apple: accept a token without `nonce` that says `nonce_supported: false`.
        public var acceptMissingNonceWhenUnsupported: Bool
        /// App Store: the accepted bundle IDs; `nil` checks none (audits of captured data only).
        public var bundleIDs: [String]?
        /// App Store: the required environment, if any.
        public var environment: AppStoreEnvironment?
        /// App Store: the app's Apple ID, checked on production notifications and AppTransactions.
        public var appAppleID: Int64?
        /// App Store: the roots chains must lead to.
        public var appStoreTrust: AppStoreTrust = .appleRootCAG3
        /// App Store: OCSP checks of the chain, judged at the current time.
        public var onlineChecks = false

        /// Settings; each unset one is absent.
        public init(
            audiences: [String] = [], issuer: String? = nil, project: String? = nil, projectNumber: String? = nil,
            hostedDomain: String? = nil, authorizedParty: String? = nil,
            acceptMissingNonceWhenUnsupported: Bool = false,
            bundleIDs: [String]? = nil, environment: AppStoreEnvironment? = nil, appAppleID: Int64? = nil,
            appStoreTrust: AppStoreTrust = .appleRootCAG3, onlineChecks: Bool = false
        ) {
            self.onlineChecks = onlineChecks
            self.bundleIDs = bundleIDs
            self.environment = environment
            self.appAppleID = appAppleID
            self.appStoreTrust = appStoreTrust
            self.projectNumber = projectNumber
            self.audiences = audiences
            self.issuer = issuer
            self.project = project
            self.hostedDomain = hostedDomain
            self.authorizedParty = authorizedParty
            self.acceptMissingNonceWhenUnsupported = acceptMissingNonceWhenUnsupported
        }
    }

    /// Why a named profile could not be made.
    public struct ProfileError: Error, Sendable, CustomStringConvertible {
        /// What is missing or unknown.
        public let description: String
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
        for setting in ProfileSetting.allCases
        where profile.requiredSettings(forService: false).contains(setting) && !setting.isGiven(in: settings) {
            throw ProfileError(description: "the \(name) profile needs \(setting.described)")
        }
        if let bundleIDs = settings.bundleIDs, bundleIDs.isEmpty {
            throw ProfileError(
                description: "the \(name) profile has an empty list of bundle IDs, so it would accept no token")
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
        var policy = profile.policy(settings)
        if withoutAudience { policy.audiences = nil }
        return policy
    }
}
