/// Sign in with Apple server-to-server notifications (`--profile apple-notification`).
package struct AppleNotificationProfile: ProviderProfile {
    package typealias Claims = AppleNotificationClaims
    package static let name = "apple-notification"
    package static let documentation = ProviderDocumentation(
        title: "Apple server-to-server notifications",
        preset: "appleNotification(audiences:)",
        example: "`.appleNotification(audiences: […])` (the JWS or the POST body `{\"payload\": …}`)",
        commandLine: "`--profile apple-notification --audience com.example.app`",
        keys: "``KeySetSource/apple``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("apple", .apple)
    package static let settings: [ProfileSetting] = [.audiences]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .appleNotification(audiences: settings.audiences)
    }

    package var receivesNotifications: Bool { true }
    package var readsNotificationEnvelope: Bool { true }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError)
        -> AppleNotificationClaims
    {
        try AppleNotificationClaims.read(reader)
    }
}

extension VerificationPolicy {
    /// Apple's server-to-server notifications: verified like identity tokens, and the `events`
    /// claim (a JSON object in a string) must be there with a `type`. A notification's POST body
    /// `{"payload": "<JWS>"}` is accepted in place of the JWS.
    public static func appleNotification(audiences: [String]) -> VerificationPolicy {
        VerificationPolicy(
            issuers: [appleIssuer], audiences: audiences, algorithms: [.rs256], rules: .appleNotification,
            keySource: .apple)
    }
}

extension ProviderRules {
    /// Apple server-to-server notifications (see ``VerificationPolicy/appleNotification(audiences:)``).
    public static let appleNotification = ProviderRules(AppleNotificationProfile())
}
