/// Firebase Authentication ID tokens (`--profile firebase`).
package struct FirebaseProfile: ProviderProfile {
    package static let name = "firebase"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase", .firebase)
    package static let subjectAlias: StaticString? = "uid"
    package static let settings: Set<ProfileSetting> = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebase(project: settings.project ?? "")
    }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .firebase(try FirebaseClaims.read(reader, sessionCookie: false))
    }

    /// `auth_time` not in the future.
    package func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        guard case .firebase(let firebase) = claims else { return nil }
        return firebase.check(now: now, leeway: leeway)
    }
}
