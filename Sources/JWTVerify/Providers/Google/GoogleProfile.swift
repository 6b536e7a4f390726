/// Google ID tokens (`--profile google`).
package struct GoogleProfile: ProviderProfile {
    package static let name = "google"
    package static let keySet: (preset: String, source: KeySetSource)? = ("google", .google)
    package static let settings: Set<ProfileSetting> = [.audiences, .hostedDomain, .authorizedParty]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .google(
            audiences: settings.audiences, hostedDomain: settings.hostedDomain,
            authorizedParty: settings.authorizedParty)
    }

    /// The `hd` required, if any.
    let hostedDomain: String?
    /// The `azp` required of a token that carries one, if any.
    let authorizedParty: String?

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .google(try GoogleClaims.read(reader))
    }

    package func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        guard case .google(let google) = claims else { return nil }
        return google.check(hostedDomain: hostedDomain, authorizedParty: authorizedParty)
    }
}
