extension VerificationPolicy {
    /// The provider profiles by name, as `--profile` spells them: each one's ``ProviderRules/profileName``.
    public static let profileNames = [
        "apple", "apple-notification", "app-store", "firebase", "firebase-session", "firebase-app-check", "firebase-phone", "google", "oidc",
    ]

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
        switch name {
        case "apple":
            return .appleIdentityToken(
                audiences: settings.audiences, acceptMissingNonceWhenUnsupported: settings.acceptMissingNonceWhenUnsupported)
        case "apple-notification":
            return .appleNotification(audiences: settings.audiences)
        case "firebase":
            guard let project = settings.project else { throw ProfileError(description: "the firebase profile needs a project") }
            return .firebase(project: project)
        case "firebase-session":
            guard let project = settings.project else { throw ProfileError(description: "the firebase-session profile needs a project") }
            return .firebaseSessionCookie(project: project)
        case "firebase-app-check":
            guard let number = settings.projectNumber else {
                throw ProfileError(description: "the firebase-app-check profile needs a project number")
            }
            return .firebaseAppCheck(projectNumber: number, project: settings.project)
        case "firebase-phone":
            guard let project = settings.project else { throw ProfileError(description: "the firebase-phone profile needs a project") }
            return .firebasePhoneNumber(project: project)
        case "google":
            return .google(audiences: settings.audiences, hostedDomain: settings.hostedDomain, authorizedParty: settings.authorizedParty)
        case "oidc":
            guard let issuer = settings.issuer else { throw ProfileError(description: "the oidc profile needs an issuer") }
            return .oidc(issuer: issuer, audiences: settings.audiences)
        case "app-store":
            return VerificationPolicy(
                issuers: nil, audiences: nil, algorithms: [.es256],
                rules: .appStore(
                    bundleIDs: settings.bundleIDs, environment: settings.environment, appAppleID: settings.appAppleID, trust: settings.appStoreTrust,
                    onlineChecks: settings.onlineChecks))
        default:
            throw ProfileError(description: "no profile is named \(name) (" + profileNames.joined(separator: ", ") + ")")
        }
    }
}
