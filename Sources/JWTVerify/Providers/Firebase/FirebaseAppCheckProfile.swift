/// Firebase App Check tokens (`--profile firebase-app-check`).
package struct FirebaseAppCheckProfile: ProviderProfile {
    package static let name = "firebase-app-check"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-app-check", .firebaseAppCheck)
    package static let subjectAlias: StaticString? = "app_id"
    package static let settings: Set<ProfileSetting> = [.projectNumber, .project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.projectNumber] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebaseAppCheck(projectNumber: settings.projectNumber ?? "", project: settings.project)
    }

    /// App Check tokens always carry `typ`.
    package var headerRequirements: HeaderRequirements { HeaderRequirements(type: true, keyID: false) }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .firebaseAppCheck(try FirebaseAppCheckClaims.read(reader))
    }
}
