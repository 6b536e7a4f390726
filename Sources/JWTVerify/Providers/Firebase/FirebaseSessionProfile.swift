/// Firebase Authentication session cookies (`--profile firebase-session`): Firebase's rules
/// (``FirebaseProfile``), under the session cookies' own issuer and keys.
package struct FirebaseSessionProfile: ProviderProfile {
    package static let name = "firebase-session"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-session", .firebaseSessionCookie)
    package static let subjectAlias: StaticString? = "uid"
    package static let settings: Set<ProfileSetting> = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebaseSessionCookie(project: settings.project ?? "")
    }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .firebase(try FirebaseClaims.read(reader, sessionCookie: true))
    }

    /// Firebase's: `auth_time` not in the future.
    package func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        FirebaseProfile().check(claims, now: now, leeway: leeway)
    }
}
