/// Google ID tokens (`--profile google`).
package enum GoogleProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.google
    package static let name = "google"
    package static let keySet: (preset: String, source: KeySetSource)? = ("google", .google)
    package static let settings: Set<ProfileSetting> = [.audiences, .hostedDomain, .authorizedParty]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .google(audiences: settings.audiences, hostedDomain: settings.hostedDomain, authorizedParty: settings.authorizedParty)
    }
}
