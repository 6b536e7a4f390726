/// Firebase phone-number verification tokens (`--profile firebase-phone`).
package struct FirebasePhoneNumberProfile: ProviderProfile {
    package static let name = "firebase-phone"
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-phone", .firebasePhoneNumber)
    package static let subjectAlias: StaticString? = "phone_number"
    package static let settings: Set<ProfileSetting> = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebasePhoneNumber(project: settings.project ?? "")
    }

    /// Phone-number tokens always carry `typ` and `kid`.
    package var headerRequirements: HeaderRequirements { HeaderRequirements(type: true, keyID: true) }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .firebasePhoneNumber(try FirebasePhoneNumberClaims.read(reader))
    }
}
