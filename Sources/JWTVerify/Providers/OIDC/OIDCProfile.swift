/// Any OpenID Connect issuer (`--profile oidc`): keys from the caller.
package struct OIDCProfile: ProviderProfile {
    package typealias Claims = OIDCClaims
    package static let name = "oidc"
    package static let documentation = ProviderDocumentation(
        title: "any OpenID Connect issuer",
        preset: "oidc(issuer:audiences:algorithms:)",
        example: "`.oidc(issuer: \"https://login.example.com\", audiences: […])`",
        commandLine: "`--profile oidc --issuer … --audience … --jwks URL`",
        keys: "yours")
    package static let keySet: (preset: String, source: KeySetSource)? = nil
    package static let settings: [ProfileSetting] = [.issuer, .audiences]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.issuer] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .oidc(issuer: settings.issuer ?? "", audiences: settings.audiences)
    }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> OIDCClaims {
        try OIDCClaims.read(reader)
    }
}

extension VerificationPolicy {
    /// Any OpenID Connect issuer: the generic checks, with `sub`, `email` and `email_verified` typed.
    public static func oidc(
        issuer: String, audiences: [String], algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed
    ) -> VerificationPolicy {
        VerificationPolicy(issuers: [issuer], audiences: audiences, algorithms: algorithms, rules: .oidc)
    }
}

extension ProviderRules {
    /// Generic OpenID Connect ID tokens (see ``VerificationPolicy/oidc(issuer:audiences:algorithms:)``).
    public static let oidc = ProviderRules(OIDCProfile())
}
