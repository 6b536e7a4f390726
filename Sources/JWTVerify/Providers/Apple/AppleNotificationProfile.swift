/// Sign in with Apple server-to-server notifications (`--profile apple-notification`).
package struct AppleNotificationProfile: ProviderProfile {
    package static let name = "apple-notification"
    package static let keySet: (preset: String, source: KeySetSource)? = ("apple", .apple)
    package static let settings: Set<ProfileSetting> = [.audiences]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .appleNotification(audiences: settings.audiences)
    }

    package var receivesNotifications: Bool { true }
    package var readsNotificationEnvelope: Bool { true }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .appleNotification(try AppleNotificationClaims.read(reader))
    }
}
