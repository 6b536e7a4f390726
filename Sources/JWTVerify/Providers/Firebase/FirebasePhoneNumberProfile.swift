/// Firebase phone-number verification tokens (`--profile firebase-phone`).
package struct FirebasePhoneNumberProfile: ProviderProfile {
    package typealias Claims = FirebasePhoneNumberClaims
    package static let name = "firebase-phone"
    package static let documentation = ProviderDocumentation(
        title: "Firebase phone-number verification",
        preset: "firebasePhoneNumber(project:)",
        example: "`.firebasePhoneNumber(project: \"my-project\")`",
        commandLine: "`--profile firebase-phone --project my-project`",
        keys: "``KeySetSource/firebasePhoneNumber``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-phone", .firebasePhoneNumber)
    package static let subjectAlias: StaticString? = "phone_number"
    package static let settings: [ProfileSetting] = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebasePhoneNumber(project: settings.project ?? "")
    }

    /// `iss` and `aud` the rules require: `https://fpnv.googleapis.com/projects/<project>`.
    let issuer: [UInt8]

    /// The rules of `project`'s phone-number tokens.
    init(project: String) { issuer = Array(("https://fpnv.googleapis.com/projects/" + project).utf8) }

    /// Phone-number tokens always carry `typ` and `kid`.
    package var headerRequirements: HeaderRequirements { HeaderRequirements(type: true, keyID: true) }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError)
        -> FirebasePhoneNumberClaims
    {
        try reader.requireIssuer(issuer)
        try reader.requireAudience(oneOf: [issuer])
        return try FirebasePhoneNumberClaims.read(reader)
    }
}

extension VerificationPolicy {
    /// Firebase phone-number verification tokens of `project`: ES256, header `typ` and `kid`
    /// required, `iss` and `aud` both `https://fpnv.googleapis.com/projects/<project>` (from
    /// configuration, never from the token), `sub` the phone number (``FirebasePhoneNumberClaims``),
    /// keys from ``KeySetSource/firebasePhoneNumber``. The policy's ``leeway`` applies.
    public static func firebasePhoneNumber(project: String) -> VerificationPolicy {
        let issuer = "https://fpnv.googleapis.com/projects/" + project
        return VerificationPolicy(
            issuers: [issuer], audiences: [issuer], algorithms: [.es256], rules: .firebasePhoneNumber(project: project),
            keySource: .firebasePhoneNumber)
    }
}

extension ProviderRules {
    /// Firebase phone-number verification tokens (see ``VerificationPolicy/firebasePhoneNumber(project:)``):
    /// the rules check that `iss` and `aud` are `https://fpnv.googleapis.com/projects/<project>`
    /// themselves.
    public static func firebasePhoneNumber(project: String) -> ProviderRules {
        ProviderRules(FirebasePhoneNumberProfile(project: project))
    }
}
