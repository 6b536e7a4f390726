/// Sign in with Apple identity tokens (`--profile apple`).
package enum AppleIdentityProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.appleIdentityToken
    package static let name = "apple"
    package static let keySet: (preset: String, source: KeySetSource)? = ("apple", .apple)
    package static let recordsNonce = true
    package static let settings: Set<ProfileSetting> = [.audiences, .acceptMissingNonceWhenUnsupported]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .appleIdentityToken(audiences: settings.audiences, acceptMissingNonceWhenUnsupported: settings.acceptMissingNonceWhenUnsupported)
    }
}
