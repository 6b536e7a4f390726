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
            hostedDomain: String? = nil, authorizedParty: String? = nil, acceptMissingNonceWhenUnsupported: Bool = false,
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

    /// The preset a profile name stands for (``profileNames``), made from `settings`: what the
    /// command line's `--profile` and a service's configuration file resolve through.
    ///
    /// - Throws: ``ProfileError`` for an unknown name, or a profile without what it needs (a
    ///   Firebase project or project number, an OpenID Connect issuer).
    public static func profile(named name: String, _ settings: ProfileSettings) throws(ProfileError) -> VerificationPolicy {
        guard let profile = ProviderRegistry.profile(named: name) else {
            throw ProfileError(description: "no profile is named \(name) (" + profileNames.joined(separator: ", ") + ")")
        }
        for setting in ProfileSetting.allCases where profile.requiredSettings(forService: false).contains(setting) && !setting.isGiven(in: settings) {
            throw ProfileError(description: "the \(name) profile needs \(setting.described)")
        }
        return profile.policy(settings)
    }
}
