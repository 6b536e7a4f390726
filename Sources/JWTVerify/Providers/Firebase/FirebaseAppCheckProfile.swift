/// Firebase App Check tokens (`--profile firebase-app-check`).
package struct FirebaseAppCheckProfile: ProviderProfile {
    package typealias Claims = FirebaseAppCheckClaims
    package static let name = "firebase-app-check"
    package static let documentation = ProviderDocumentation(
        title: "Firebase App Check",
        preset: "firebaseAppCheck(projectNumber:project:)",
        example: "`.firebaseAppCheck(projectNumber: \"123456789\", project: \"my-project\")`",
        commandLine: "`--profile firebase-app-check --project-number 123456789 --project my-project`",
        keys: "``KeySetSource/firebaseAppCheck``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-app-check", .firebaseAppCheck)
    package static let subjectAlias: StaticString? = "app_id"
    package static let settings: [ProfileSetting] = [.projectNumber, .project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.projectNumber] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebaseAppCheck(projectNumber: settings.projectNumber ?? "", project: settings.project)
    }

    /// `iss` the rules require: `https://firebaseappcheck.googleapis.com/<projectNumber>`.
    let issuer: [UInt8]
    /// The audiences `aud` must hold one of: `projects/<projectNumber>`, `projects/<project>`.
    let audiences: [[UInt8]]

    /// The rules of the App Check tokens of project `projectNumber` (and `project`).
    init(projectNumber: String, project: String?) {
        issuer = Array(("https://firebaseappcheck.googleapis.com/" + projectNumber).utf8)
        audiences = ([projectNumber] + (project.map { [$0] } ?? [])).map { Array(("projects/" + $0).utf8) }
    }

    /// App Check tokens always carry `typ`.
    package var headerRequirements: HeaderRequirements { HeaderRequirements(type: true, keyID: false) }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError)
        -> FirebaseAppCheckClaims
    {
        try reader.requireIssuer(issuer)
        try reader.requireAudience(oneOf: audiences)
        return try FirebaseAppCheckClaims.read(reader)
    }
}

extension VerificationPolicy {
    /// Firebase App Check tokens of a project: RS256, header `typ` required, `iss`
    /// `https://firebaseappcheck.googleapis.com/<projectNumber>`, `aud` holding
    /// `projects/<projectNumber>` (or `projects/<project>` when `project` is given), `sub` the app
    /// ID (``FirebaseAppCheckClaims``), keys from ``KeySetSource/firebaseAppCheck``. The policy's
    /// ``leeway`` applies (firebase-admin allows none).
    public static func firebaseAppCheck(projectNumber: String, project: String? = nil) -> VerificationPolicy {
        VerificationPolicy(
            issuers: ["https://firebaseappcheck.googleapis.com/" + projectNumber],
            audiences: ["projects/" + projectNumber] + (project.map { ["projects/" + $0] } ?? []), algorithms: [.rs256],
            rules: .firebaseAppCheck(projectNumber: projectNumber, project: project), keySource: .firebaseAppCheck)
    }
}

extension ProviderRules {
    /// Firebase App Check tokens (see ``VerificationPolicy/firebaseAppCheck(projectNumber:project:)``):
    /// the rules check that `iss` is `https://firebaseappcheck.googleapis.com/<projectNumber>` and
    /// that `aud` holds `projects/<projectNumber>` (or `projects/<project>` when `project` is given)
    /// themselves.
    public static func firebaseAppCheck(projectNumber: String, project: String? = nil) -> ProviderRules {
        ProviderRules(FirebaseAppCheckProfile(projectNumber: projectNumber, project: project))
    }
}
