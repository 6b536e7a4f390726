/// Firebase phone-number verification tokens (`--profile firebase-phone`).
package enum FirebasePhoneNumberProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.firebasePhoneNumber
    package static let name = "firebase-phone"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-phone", .firebasePhoneNumber)
    package static let subjectAlias: String? = "phone_number"
    package static let settings: Set<ProfileSetting> = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebasePhoneNumber(project: settings.project ?? "")
    }
}
