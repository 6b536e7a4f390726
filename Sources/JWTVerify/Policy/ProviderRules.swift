/// A provider's own rules, on top of the generic checks. Part of a ``VerificationPolicy``.
///
/// The rules read the payload the verifier already parsed (never a second parse) and run after
/// the generic claim checks, as the last step of the same walk; their failures use the stable
/// reasons (`claim_type`, `issued_in_future`, `hosted_domain_mismatch`, `audience_mismatch`, ...).
/// Each provider's rules, typed claims and presets (``appleIdentityToken(acceptMissingNonceWhenUnsupported:)``,
/// ``firebase(project:)``, ...) live in its own folder (`Providers/`); a value of this type holds one
/// provider with its settings, and new providers can be added without breaking callers (it is a
/// struct, not an enum to switch over).
public struct ProviderRules: Sendable, Hashable {
    /// The provider with its settings; `nil` for ``none``.
    package let profile: (any ProviderProfile)?
    /// The provider's keys from each token's `x5c` chain, when it has that capability (App Store
    /// signed data); found once, here, not per token.
    let certificateChainKeys: (any CertificateChainKeys)?

    private init(_ profile: (any ProviderProfile)?) {
        self.profile = profile
        certificateChainKeys = profile as? any CertificateChainKeys
    }

    /// The rules of `profile` with its settings: what each provider's public presets return.
    package init(_ profile: some ProviderProfile) { self.init(Optional(profile)) }

    /// No provider rules: only the generic checks.
    public static let none = ProviderRules(nil)

    /// Whether both name the same provider with the same settings.
    public static func == (lhs: ProviderRules, rhs: ProviderRules) -> Bool {
        switch (lhs.profile, rhs.profile) {
        case (nil, nil): true
        case (let a?, let b?): AnyHashable(a) == AnyHashable(b)
        default: false
        }
    }

    /// Hashes the provider and its settings.
    public func hash(into hasher: inout Hasher) {
        if let profile { hasher.combine(AnyHashable(profile)) }
    }

    /// The name `--profile` spells these rules with (`nil` for ``none``).
    public var profileName: String? { profile.map { type(of: $0).name } }

    /// The provider's description as the faces name it (`nil` for ``none``).
    package var profileType: (any ProviderProfile.Type)? { profile.map { type(of: $0) } }

    /// Header parameters the provider always sends.
    var headerRequirements: JOSEHeader.Requirements { profile?.headerRequirements ?? JOSEHeader.Requirements() }

    /// Whether `exp` is required.
    var requiresExpiration: Bool { profile?.requiresExpiration ?? true }

    /// Whether a service receives these tokens as notifications.
    package var receivesNotifications: Bool { profile?.receivesNotifications ?? false }

    /// The scopes a refusal's Bearer challenge names (``ProviderProfile/challengeScope``).
    package var challengeScope: [String] { profile?.challengeScope ?? [] }

    /// Whether the verifier also takes the token inside Apple's notification envelope.
    var readsNotificationEnvelope: Bool { profile?.readsNotificationEnvelope ?? false }

    /// Whether a missing `nonce` passes for these claims.
    func excusesMissingNonce(_ claims: ProviderClaims?) -> Bool {
        guard let profile, let claims else { return false }
        return profile.excusesMissingNonce(held: claims)
    }

    /// The provider's claims of `payload`, typed, or the type rule they break; `nil` for ``none``.
    func read<Object: JSONObjectReading>(_ payload: Object) -> Result<ProviderClaims, VerificationError>? {
        guard let profile else { return nil }
        // Each parser's object through its own requirement (the casts fold in the specialized caller).
        if let payload = payload as? FlatJSONObject { return profile.readClaims(scanned: payload) }
        if let payload = payload as? JSONNode { return profile.readClaims(parsed: payload) }
        return profile.readGenerically(payload)
    }

    /// The rules that compare claims with configuration or with the time, in a fixed order.
    func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        profile?.check(held: claims, now: now, leeway: leeway)
    }

    /// The instant the provider judges the token at unless the call fixes one (`nil`: the clock's).
    package func evaluationInstant(_ claims: ProviderClaims) -> Double? {
        profile?.evaluationInstant(held: claims)
    }

    /// The signed data the claims carry, to be verified as tokens of their own before
    /// ``complete(_:nested:)``; empty for most providers.
    func nestedTokens(_ claims: ProviderClaims) -> [NestedToken] { profile?.nestedTokens(held: claims) ?? [] }

    /// The claims once the tokens ``nestedTokens(_:)`` named have their verdicts (in its order),
    /// or the failure that fails the token.
    func complete(_ claims: ProviderClaims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>) -> Result<
        ProviderClaims, VerificationError
    > {
        guard let profile else { return .success(claims) }
        return profile.complete(held: claims, nested: nested)
    }
}
