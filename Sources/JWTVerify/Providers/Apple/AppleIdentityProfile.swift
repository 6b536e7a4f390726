/// Sign in with Apple identity tokens (`--profile apple`).
package struct AppleIdentityProfile: ProviderProfile {
    package static let name = "apple"
    package static let keySet: (preset: String, source: KeySetSource)? = ("apple", .apple)
    package static let recordsNonce = true
    package static let settings: Set<ProfileSetting> = [.audiences, .acceptMissingNonceWhenUnsupported]
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .appleIdentityToken(
            audiences: settings.audiences, acceptMissingNonceWhenUnsupported: settings.acceptMissingNonceWhenUnsupported
        )
    }

    /// Whether a missing `nonce` passes when the token says `nonce_supported: false`.
    let acceptMissingNonceWhenUnsupported: Bool

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .appleIdentityToken(try AppleIdentityClaims.read(reader))
    }

    package func excusesMissingNonce(_ claims: ProviderClaims) -> Bool {
        guard acceptMissingNonceWhenUnsupported, case .appleIdentityToken(let apple) = claims else { return false }
        return apple.nonceSupported == false
    }
}
