/// Sign in with Apple identity tokens (`--profile apple`).
package struct AppleIdentityProfile: ProviderProfile {
    package typealias Claims = AppleIdentityClaims
    package static let name = "apple"
    package static let documentation = ProviderDocumentation(
        title: "Sign in with Apple",
        preset: "appleIdentityToken(audiences:acceptMissingNonceWhenUnsupported:nonce:)",
        example: "`Verifier(keys: keys, policy: .appleIdentityToken(audiences: [\"com.example.app\"]))`",
        commandLine: "`--profile apple --audience com.example.app`",
        keys: "``KeySetSource/apple``")
    package static let keySet: (preset: String, source: KeySetSource)? = ("apple", .apple)
    package static let recordsNonce = true
    package static let settings: [ProfileSetting] = [.audiences, .acceptMissingNonceWhenUnsupported]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .appleIdentityToken(
            audiences: settings.audiences, acceptMissingNonceWhenUnsupported: settings.acceptMissingNonceWhenUnsupported
        )
    }

    /// Whether a missing `nonce` passes when the token says `nonce_supported: false`.
    let acceptMissingNonceWhenUnsupported: Bool

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AppleIdentityClaims {
        try AppleIdentityClaims.read(reader)
    }

    package func excusesMissingNonce(_ claims: AppleIdentityClaims) -> Bool {
        acceptMissingNonceWhenUnsupported && claims.nonceSupported == false
    }
}

extension ProfileSetting {
    /// Apple: accept a token without `nonce` that says `nonce_supported: false`.
    package static let acceptMissingNonceWhenUnsupported = ProfileSetting(
        "accept-missing-nonce-when-unsupported", placeholder: nil, kind: .flag,
        described: "accepting a missing nonce when unsupported",
        help: "Apple: accept a token without nonce if it says nonce_supported false.")
}

extension VerificationPolicy.ProfileSettings {
    /// Apple: accept a token without `nonce` that says `nonce_supported: false`.
    public var acceptMissingNonceWhenUnsupported: Bool {
        get { flag(.acceptMissingNonceWhenUnsupported) }
        set { set(.acceptMissingNonceWhenUnsupported, flag: newValue) }
    }
}

extension VerificationPolicy {
    /// Sign in with Apple identity tokens: RS256, `iss` `https://appleid.apple.com`, `iat` required,
    /// `email_verified`/`is_private_email`/`nonce_supported` as booleans or "true"/"false",
    /// `real_user_status` 0, 1 or 2; a server-to-server notification is refused as `claim_type`.
    ///
    /// Every call must pass the raw nonce the sign-in started with
    /// (``Verifier/verify(_:nonce:at:)-(String,_,_)``): a call without one is `nonce_missing`.
    /// A service that does not use nonces says so with `nonce: .checkedWhenGiven`.
    ///
    /// - Parameters:
    ///   - audiences: the accepted `aud` values: your bundle IDs and Services IDs.
    ///   - acceptMissingNonceWhenUnsupported: accept a token without `nonce` when a nonce was
    ///     given but the token says `nonce_supported: false` (older devices). Off by default.
    ///   - nonce: ``NonceRequirement/required`` unless this service uses no nonces.
    public static func appleIdentityToken(
        audiences: [String], acceptMissingNonceWhenUnsupported: Bool = false, nonce: NonceRequirement = .required
    ) -> VerificationPolicy {
        VerificationPolicy(
            issuers: [appleIssuer], audiences: audiences, algorithms: [.rs256],
            rules: .appleIdentityToken(acceptMissingNonceWhenUnsupported: acceptMissingNonceWhenUnsupported),
            keySource: .apple,
            nonceRequirement: nonce)
    }

    /// Apple's issuer.
    public static let appleIssuer = "https://appleid.apple.com"
}

extension ProviderRules {
    /// Sign in with Apple identity tokens (see ``VerificationPolicy/appleIdentityToken(audiences:acceptMissingNonceWhenUnsupported:nonce:)``).
    public static func appleIdentityToken(acceptMissingNonceWhenUnsupported: Bool = false) -> ProviderRules {
        ProviderRules(AppleIdentityProfile(acceptMissingNonceWhenUnsupported: acceptMissingNonceWhenUnsupported))
    }
}
