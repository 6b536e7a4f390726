/// Firebase Authentication ID tokens (`--profile firebase`).
package struct FirebaseProfile: ProviderProfile {
    package typealias Claims = FirebaseClaims
    package static let name = "firebase"
    package static let documentation = ProviderDocumentation(
        title: "Firebase ID tokens",
        preset: "firebase(project:)",
        example: "`.firebase(project: \"my-project\")` (issuer and audience from the project, never from the token)",
        commandLine: "`--profile firebase --project my-project`",
        keys: "``KeySetSource/firebase``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase", .firebase)
    package static let subjectAlias: StaticString? = "uid"
    package static let settings: [ProfileSetting] = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebase(project: settings.project ?? "")
    }

    /// `iss` the rules require: `https://securetoken.google.com/<project>`.
    let issuer: [UInt8]
    /// `aud` the rules require: the project.
    let audience: [UInt8]

    /// The rules of `project`'s ID tokens.
    init(project: String) {
        issuer = Array(("https://securetoken.google.com/" + project).utf8)
        audience = Array(project.utf8)
    }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> FirebaseClaims {
        try reader.requireIssuer(issuer)
        try reader.requireAudience(oneOf: [audience])
        return try FirebaseClaims.read(reader, sessionCookie: false)
    }

    /// `auth_time` not in the future.
    package func check(_ claims: FirebaseClaims, now: Double, leeway: Double) -> VerificationError? {
        claims.check(now: now, leeway: leeway)
    }
}

extension VerificationPolicy {
    /// Firebase Authentication ID tokens of `project`: `iss` `https://securetoken.google.com/<project>`
    /// and `aud` the project, both from configuration, never from the token; `sub` non-empty and at
    /// most 128 characters, `auth_time` required and not in the future.
    public static func firebase(project: String) -> VerificationPolicy {
        VerificationPolicy(
            issuers: ["https://securetoken.google.com/" + project], audiences: [project], algorithms: [.rs256],
            rules: .firebase(project: project), keySource: .firebase)
    }
}

extension ProviderRules {
    /// Firebase Authentication ID tokens of `project` (see ``VerificationPolicy/firebase(project:)``):
    /// the rules check that `iss` is `https://securetoken.google.com/<project>` and `aud` the project
    /// themselves, whatever the policy's issuers and audiences say.
    public static func firebase(project: String) -> ProviderRules {
        ProviderRules(FirebaseProfile(project: project))
    }
}
