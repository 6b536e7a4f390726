/// Firebase Authentication session cookies (`--profile firebase-session`): Firebase's rules
/// (``FirebaseProfile``), under the session cookies' own issuer and keys.
package struct FirebaseSessionProfile: ProviderProfile {
    package typealias Claims = FirebaseClaims
    package static let name = "firebase-session"
    package static let documentation = ProviderDocumentation(
        title: "Firebase session cookies",
        preset: "firebaseSessionCookie(project:)",
        example: "`.firebaseSessionCookie(project: \"my-project\")`",
        commandLine: "`--profile firebase-session --project my-project`",
        keys: "``KeySetSource/firebaseSessionCookie``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("firebase-session", .firebaseSessionCookie)
    package static let subjectAlias: StaticString? = "uid"
    package static let settings: [ProfileSetting] = [.project]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.project] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .firebaseSessionCookie(project: settings.project ?? "")
    }

    /// `iss` the rules require: `https://session.firebase.google.com/<project>`.
    let issuer: [UInt8]
    /// `aud` the rules require: the project.
    let audience: [UInt8]

    /// The rules of `project`'s session cookies.
    init(project: String) {
        issuer = Array(("https://session.firebase.google.com/" + project).utf8)
        audience = Array(project.utf8)
    }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> FirebaseClaims {
        try reader.requireIssuer(issuer)
        try reader.requireAudience(oneOf: [audience])
        return try FirebaseClaims.read(reader, sessionCookie: true)
    }

    /// Firebase's: `auth_time` not in the future.
    package func check(_ claims: FirebaseClaims, now: Double, leeway: Double) -> VerificationError? {
        claims.check(now: now, leeway: leeway)
    }
}

extension VerificationPolicy {
    /// Firebase Authentication session cookies of `project` (what `createSessionCookie` mints):
    /// `iss` `https://session.firebase.google.com/<project>`, `aud` the project, RS256 under the
    /// session-cookie keys (``KeySetSource/firebaseSessionCookie``); the same claim rules as ID
    /// tokens (``FirebaseClaims``). firebase-admin applies no clock skew to cookies; this policy
    /// applies its ``leeway`` (60 s unless changed), as for every token.
    public static func firebaseSessionCookie(project: String) -> VerificationPolicy {
        VerificationPolicy(
            issuers: ["https://session.firebase.google.com/" + project], audiences: [project], algorithms: [.rs256],
            rules: .firebaseSessionCookie(project: project), keySource: .firebaseSessionCookie)
    }
}

extension ProviderRules {
    /// Firebase Authentication session cookies of `project` (see
    /// ``VerificationPolicy/firebaseSessionCookie(project:)``): the rules check that `iss` is
    /// `https://session.firebase.google.com/<project>` and `aud` the project themselves.
    public static func firebaseSessionCookie(project: String) -> ProviderRules {
        ProviderRules(FirebaseSessionProfile(project: project))
    }
}
