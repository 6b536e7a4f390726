/// Any OpenID Connect issuer (`--profile oidc`): keys from the caller.
package struct OIDCProfile: ProviderProfile {
    package static let name = "oidc"
    package static let keySet: (preset: String, source: KeySetSource)? = nil
    package static let settings: Set<ProfileSetting> = [.issuer, .audiences]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.issuer] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .oidc(issuer: settings.issuer ?? "", audiences: settings.audiences)
    }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .oidc(try OIDCClaims.read(reader))
    }
}
