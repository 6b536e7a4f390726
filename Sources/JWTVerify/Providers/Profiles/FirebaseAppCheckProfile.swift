/// Firebase App Check tokens (`--profile firebase-app-check`).
package enum FirebaseAppCheckProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.firebaseAppCheck
    package static let name = "firebase-app-check"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-app-check", .firebaseAppCheck)
    package static let subjectAlias: String? = "app_id"
    package static let settings: Set<ProfileSetting> = [.projectNumber, .project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.projectNumber] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebaseAppCheck(projectNumber: settings.projectNumber ?? "", project: settings.project)
    }
}
