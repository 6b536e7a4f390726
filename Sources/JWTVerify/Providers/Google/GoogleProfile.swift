/// Google ID tokens (`--profile google`).
package struct GoogleProfile: ProviderProfile {
    package typealias Claims = GoogleClaims
    package static let name = "google"
    package static let documentation = ProviderDocumentation(
        title: "Google ID tokens",
        preset: "google(audiences:hostedDomain:authorizedParty:)",
        example: "`.google(audiences: […], hostedDomain: \"example.com\")` (both issuer spellings)",
        commandLine: "`--profile google --audience CLIENT_ID`",
        keys: "``KeySetSource/google``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("google", .google)
    package static let settings: [ProfileSetting] = [.audiences, .hostedDomain, .authorizedParty]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .google(
            audiences: settings.audiences, hostedDomain: settings.hostedDomain,
            authorizedParty: settings.authorizedParty)
    }
    package static let reasons = [
        ReasonEntry(.hostedDomainMismatch, "Google's `hd` is not the required hosted domain", answer: .forbidden)
    ]

    /// The `hd` required, if any.
    let hostedDomain: String?
    /// The `azp` required of a token that carries one, if any.
    let authorizedParty: String?

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> GoogleClaims {
        try GoogleClaims.read(reader)
    }

    package func check(_ claims: GoogleClaims, now: Double, leeway: Double) -> VerificationError? {
        claims.check(hostedDomain: hostedDomain, authorizedParty: authorizedParty)
    }
}

extension ProfileSetting {
    /// Google: the required `hd`.
    package static let hostedDomain = ProfileSetting(
        "hosted-domain", placeholder: "D", kind: .text(nonEmpty: true), described: "a hosted domain",
        help: "Google: required \"hd\".")
    /// Google: the required `azp`, when the token has one.
    package static let authorizedParty = ProfileSetting(
        "authorized-party", placeholder: "A", kind: .text(nonEmpty: true), described: "an authorized party",
        help: "Google: required \"azp\", when the token has one.")
}

extension VerificationPolicy.ProfileSettings {
    /// Google: the required `hd`.
    public var hostedDomain: String? {
        get { text(.hostedDomain) }
        set { set(.hostedDomain, text: newValue) }
    }
    /// Google: the required `azp`, when the token has one.
    public var authorizedParty: String? {
        get { text(.authorizedParty) }
        set { set(.authorizedParty, text: newValue) }
    }
}

extension VerificationError.Reason {
    /// Google profile: the token's `hd` is not the required hosted domain.
    public static let hostedDomainMismatch = VerificationError.Reason(rawValue: "hosted_domain_mismatch")
}

extension VerificationPolicy {
    /// Google ID tokens: `iss` `https://accounts.google.com` or `accounts.google.com`, RS256.
    ///
    /// - Parameters:
    ///   - audiences: the accepted `aud` values: your OAuth client IDs.
    ///   - hostedDomain: when set, `hd` must be exactly this (else `hosted_domain_mismatch`).
    ///   - authorizedParty: when set, an `azp` the token carries must be this (else `audience_mismatch`).
    public static func google(audiences: [String], hostedDomain: String? = nil, authorizedParty: String? = nil)
        -> VerificationPolicy
    {
        VerificationPolicy(
            issuers: ["https://accounts.google.com", "accounts.google.com"], audiences: audiences, algorithms: [.rs256],
            rules: .google(hostedDomain: hostedDomain, authorizedParty: authorizedParty), keySource: .google)
    }
}

extension ProviderRules {
    /// Google ID tokens (see ``VerificationPolicy/google(audiences:hostedDomain:authorizedParty:)``).
    public static func google(hostedDomain: String? = nil, authorizedParty: String? = nil) -> ProviderRules {
        ProviderRules(GoogleProfile(hostedDomain: hostedDomain, authorizedParty: authorizedParty))
    }
}
