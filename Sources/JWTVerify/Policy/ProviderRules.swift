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
    /// The provider with its settings, boxed once; `nil` for ``none``. The walk calls the provider
    /// in its box and reads the flags below, so a token's checks copy no existential (a copy
    /// costs a reference count per string of the settings, on memory every thread shares).
    private let box: ProviderProfileBox?
    /// Header parameters the provider always sends.
    let headerRequirements: JOSEHeader.Requirements
    /// Whether `exp` is required.
    let requiresExpiration: Bool
    /// Whether a service receives these tokens as notifications.
    package let receivesNotifications: Bool
    /// Whether the verifier also takes the token inside Apple's notification envelope.
    let readsNotificationEnvelope: Bool

    private init(_ profile: (any ProviderProfile)?) {
        box = profile.map(ProviderProfileBox.init)
        headerRequirements = profile?.headerRequirements ?? JOSEHeader.Requirements()
        requiresExpiration = profile?.requiresExpiration ?? true
        receivesNotifications = profile?.receivesNotifications ?? false
        readsNotificationEnvelope = profile?.readsNotificationEnvelope ?? false
    }

    /// The rules of `profile` with its settings: what each provider's public presets return.
    package init(_ profile: some ProviderProfile) { self.init(Optional(profile)) }

    /// No provider rules: only the generic checks.
    public static let none = ProviderRules(nil)

    /// The provider with its settings; `nil` for ``none``.
    package var profile: (any ProviderProfile)? { box?.profile }

    /// The provider's keys from each token's `x5c` chain, when it has that capability (App Store
    /// signed data); found once, when the rules are made, not per token.
    var certificateChainKeys: (any CertificateChainKeys)? { box?.certificateChainKeys }

    /// Whether the provider takes its keys from each token's `x5c` chain.
    var readsCertificateChains: Bool { box?.readsCertificateChains ?? false }

    /// Whether both name the same provider with the same settings.
    public static func == (lhs: ProviderRules, rhs: ProviderRules) -> Bool {
        switch (lhs.box, rhs.box) {
        case (nil, nil): true
        case (let a?, let b?): AnyHashable(a.profile) == AnyHashable(b.profile)
        default: false
        }
    }

    /// Hashes the provider and its settings.
    public func hash(into hasher: inout Hasher) {
        if let box { hasher.combine(AnyHashable(box.profile)) }
    }

    /// The name `--profile` spells these rules with (`nil` for ``none``).
    public var profileName: String? { box.map { type(of: $0.profile).name } }

    /// The provider's description as the faces name it (`nil` for ``none``).
    package var profileType: (any ProviderProfile.Type)? { box.map { type(of: $0.profile) } }

    /// The scopes a refusal's Bearer challenge names (``ProviderProfile/challengeScope``).
    package var challengeScope: [String] { box?.profile.challengeScope ?? [] }

    /// Whether a missing `nonce` passes for these claims.
    func excusesMissingNonce(_ claims: ProviderClaims?) -> Bool {
        guard let box, let claims else { return false }
        return box.profile.excusesMissingNonce(held: claims)
    }

    /// What reads the provider's claims from one payload, holding the rules' box without a
    /// reference count (the rules outlive every parse they serve).
    var claimsReader: ProviderClaimsReader { ProviderClaimsReader(box: box) }

    /// The rules that compare claims with configuration or with the time, in a fixed order.
    func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        box?.profile.check(held: claims, now: now, leeway: leeway)
    }

    /// The instant the provider judges the token at unless the call fixes one (`nil`: the clock's).
    package func evaluationInstant(_ claims: ProviderClaims) -> Double? {
        box?.profile.evaluationInstant(held: claims)
    }

    /// The signed data the claims carry, to be verified as tokens of their own before
    /// ``complete(_:nested:)``; empty for most providers.
    func nestedTokens(_ claims: ProviderClaims) -> [NestedToken] { box?.profile.nestedTokens(held: claims) ?? [] }

    /// The claims once the tokens ``nestedTokens(_:)`` named have their verdicts (in its order),
    /// or the failure that fails the token.
    func complete(_ claims: ProviderClaims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>) -> Result<
        ProviderClaims, VerificationError
    > {
        guard let box else { return .success(claims) }
        return box.profile.complete(held: claims, nested: nested)
    }
}

/// One provider with its settings, and its chain capability found once: what ``ProviderRules``
/// holds, so that copying the rules costs one reference count and the walk calls the provider in
/// place.
private final class ProviderProfileBox: Sendable {
    /// The provider with its settings.
    let profile: any ProviderProfile
    /// The provider's keys from each token's `x5c` chain, when it has that capability.
    let certificateChainKeys: (any CertificateChainKeys)?
    /// Whether it has that capability: asked once per token, answered without copying the
    /// capability out.
    let readsCertificateChains: Bool

    init(_ profile: any ProviderProfile) {
        self.profile = profile
        certificateChainKeys = profile as? any CertificateChainKeys
        readsCertificateChains = certificateChainKeys != nil
    }
}

/// Reads one payload's provider claims for ``ProviderRules``, during a parse the rules outlive:
/// it holds their box unretained and calls into it as a guaranteed reference, so handing it to a
/// parse and reading through it cost no reference count on memory every thread shares.
struct ProviderClaimsReader {
    private let box: Unmanaged<ProviderProfileBox>?

    fileprivate init(box: ProviderProfileBox?) { self.box = box.map { Unmanaged.passUnretained($0) } }

    /// The provider's claims of `payload`, typed, or the type rule they break; `nil` without
    /// provider rules.
    func read<Object: JSONObjectReading>(_ payload: Object) -> Result<ProviderClaims, VerificationError>? {
        guard let box else { return nil }
        return box._withUnsafeGuaranteedRef { box in
            // Each parser's object through its own requirement (the casts fold in the specialized caller).
            if let payload = payload as? FlatJSONObject { return box.profile.readClaims(scanned: payload) }
            if let payload = payload as? JSONNode { return box.profile.readClaims(parsed: payload) }
            return box.profile.readGenerically(payload)
        }
    }
}
