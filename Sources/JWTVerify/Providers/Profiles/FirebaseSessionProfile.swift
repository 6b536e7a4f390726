/// Firebase Authentication session cookies (`--profile firebase-session`).
package enum FirebaseSessionProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.firebaseSession
    package static let name = "firebase-session"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-session", .firebaseSessionCookie)
    package static let subjectAlias: String? = "uid"
    package static let settings: Set<ProfileSetting> = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebaseSessionCookie(project: settings.project ?? "")
    }
}
