/// Sign in with Apple server-to-server notifications (`--profile apple-notification`).
package enum AppleNotificationProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.appleNotification
    package static let name = "apple-notification"
    package static let keySet: (preset: String, source: KeySetSource)? = ("apple", .apple)
    package static let settings: Set<ProfileSetting> = [.audiences]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .appleNotification(audiences: settings.audiences)
    }
}
