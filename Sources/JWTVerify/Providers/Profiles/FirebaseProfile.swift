/// Firebase Authentication ID tokens (`--profile firebase`).
package enum FirebaseProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.firebase
    package static let name = "firebase"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase", .firebase)
    package static let subjectAlias: String? = "uid"
    package static let settings: Set<ProfileSetting> = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy { .firebase(project: settings.project ?? "") }
}
