/// One provider as one unit: as the faces name it (its profile name, preset policy, key source,
/// settings, reasons, what records show) and, as a value with its settings, its rules (header
/// requirements, typed claims of its own ``Claims`` type, checks, evaluation time). Each provider
/// declares one in its folder (`Providers/NAME/`), with its claims, its settings, its reasons and
/// its public presets (``ProviderRules`` and ``VerificationPolicy`` extensions), and
/// ``ProviderRegistry`` lists it: that line is the only edit outside the folder. The pipeline,
/// profiles by name, key-set presets, the command line's flags, help and manual pages, records,
/// audit reports and the generated docs tables look providers up here instead of naming them.
package protocol ProviderProfile: Sendable, Hashable {
    /// The provider's typed claims: what its rules read, check and hand to callers.
    associatedtype Claims: ProviderClaimSet & ProviderClaimMembers

    /// The name `--profile` and configuration files spell it with.
    static var name: String { get }
    /// What the docs' provider tables say of it (made by `scripts/docs-tables`).
    static var documentation: ProviderDocumentation { get }
    /// Where the provider publishes its keys, as a key-set preset (`--jwks NAME`); `nil` when the
    /// keys are the caller's (OpenID Connect) or come from each token (App Store signed data).
    static var keySet: (preset: String, source: KeySetSource)? { get }
    /// Where each token's key comes from.
    static var keyOrigin: ProviderKeyOrigin { get }
    /// The settings the profile takes besides its name, in help order.
    static var settings: [ProfileSetting] { get }
    /// The settings it cannot do without; with `forService`, those a service's check needs too.
    static func requiredSettings(forService: Bool) -> Set<ProfileSetting>
    /// The preset, made from settings that hold every required one; throws when the settings
    /// would make a policy that accepts no token, or a file's bytes are not what they must be.
    static func policy(_ settings: VerificationPolicy.ProfileSettings) throws(VerificationPolicy.ProfileError)
        -> VerificationPolicy
    /// The reasons only this provider's rules give, with what they mean (``ReasonEntry``).
    static var reasons: [ReasonEntry] { get }
    /// The name records give `sub` besides its own, where the provider calls it otherwise
    /// (`uid`, `app_id`, `phone_number`).
    static var subjectAlias: StaticString? { get }
    /// Whether records show the `nonce` claim among the provider's typed claims.
    static var recordsNonce: Bool { get }
    /// The audit report's breakdowns of the provider's verified tokens, in report order, with their
    /// titles (the claims say what each token counts as: ``ProviderClaimMembers/forEachFacet(_:)``).
    static var reportFacets: [(name: String, title: String)] { get }
    /// The claim whose instant the provider's tokens are judged at unless a time is given
    /// (``evaluationInstant(_:)``), for people: `signedDate`; `nil` when judged by the clock.
    static var evaluationClaim: String? { get }

    /// Header parameters the provider always sends, so a token without them is not its own.
    var headerRequirements: HeaderRequirements { get }
    /// Whether `exp` is required (App Store signed data has none: its certificates expire).
    var requiresExpiration: Bool { get }
    /// Whether a service receives these tokens as notifications (`POST /notifications`).
    var receivesNotifications: Bool { get }
    /// The scopes a refusal's Bearer challenge names (RFC 6750 §3's `scope`), for the reasons the
    /// provider answers ``ReasonEntry/Answer/challenged(error:)``: what its rules require.
    var challengeScope: [String] { get }
    /// Whether the verifier also takes the token inside Apple's `{"payload"}` or
    /// `{"signedPayload"}` envelope.
    var readsNotificationEnvelope: Bool { get }
    /// The provider's claims of a payload, typed, or the type rule they break. Time rules wait for
    /// ``check(_:now:leeway:)``, which runs after the generic checks.
    func read<Object: JSONObjectReading>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> Claims
    /// Whether a token without a `nonce` passes although the call gave a raw nonce.
    func excusesMissingNonce(_ claims: Claims) -> Bool
    /// The rules that compare claims with the settings or with the time, in a fixed order.
    func check(_ claims: Claims, now: Double, leeway: Double) -> VerificationError?
    /// The instant (seconds since the epoch) the token is judged at unless the call fixes one;
    /// `nil` for the clock's.
    func evaluationInstant(_ claims: Claims) -> Double?
    /// The signed data the claims carry, each to be verified as a token of its own before the
    /// claims are complete (an App Store notification's nested signed data), in the order
    /// ``complete(_:nested:)`` takes their verdicts; none for most providers.
    func nestedTokens(_ claims: Claims) -> [NestedToken]
    /// The claims once the tokens ``nestedTokens(_:)`` named have their verdicts (in its order;
    /// `nil`: nothing to add, the claims as read), or the failure that fails the token.
    func complete(_ claims: Claims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>) -> Result<
        Claims?, VerificationError
    >

    // What the pipeline calls, over claims it holds without naming their type. Requirements of
    // their own, with the defaults below, so that each provider's witness is compiled for its own
    // types (an extension method called through `any ProviderProfile` would run unspecialized, on
    // every token); no provider writes them.

    /// ``read(_:)`` of an object of the fast scanner.
    func readClaims(scanned payload: FlatJSONObject) -> Result<ProviderClaims, VerificationError>
    /// ``read(_:)`` of an object of jansson.
    func readClaims(parsed payload: JSONNode) -> Result<ProviderClaims, VerificationError>
    /// ``excusesMissingNonce(_:)`` of claims this provider read.
    func excusesMissingNonce(held claims: ProviderClaims) -> Bool
    /// ``check(_:now:leeway:)`` of claims this provider read.
    func check(held claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError?
    /// ``evaluationInstant(_:)`` of claims this provider read.
    func evaluationInstant(held claims: ProviderClaims) -> Double?
    /// ``nestedTokens(_:)`` of claims this provider read.
    func nestedTokens(held claims: ProviderClaims) -> [NestedToken]
    /// ``complete(_:nested:)`` of claims this provider read.
    func complete(held claims: ProviderClaims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>)
        -> Result<ProviderClaims, VerificationError>
}

extension ProviderProfile {
    /// No settings required, unless a profile says otherwise.
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [] }
    /// Keys from a key set, unless a profile says otherwise.
    package static var keyOrigin: ProviderKeyOrigin { .keySet }
    /// No reasons of its own, unless a profile says otherwise.
    package static var reasons: [ReasonEntry] { [] }
    /// `sub` under its own name only, unless a profile says otherwise.
    package static var subjectAlias: StaticString? { nil }
    /// No `nonce` among the typed claims, unless a profile says otherwise.
    package static var recordsNonce: Bool { false }
    /// No breakdowns of its own, unless a profile says otherwise.
    package static var reportFacets: [(name: String, title: String)] { [] }
    /// Judged by the clock, unless a profile says otherwise.
    package static var evaluationClaim: String? { nil }
    /// No header parameter required beyond `alg`, unless a profile says otherwise.
    package var headerRequirements: HeaderRequirements { HeaderRequirements() }
    /// `exp` required, unless a profile says otherwise.
    package var requiresExpiration: Bool { true }
    /// Not notifications, unless a profile says otherwise.
    package var receivesNotifications: Bool { false }
    /// No scopes to name, unless a profile says otherwise.
    package var challengeScope: [String] { [] }
    /// No envelope, unless a profile says otherwise.
    package var readsNotificationEnvelope: Bool { false }
    /// A missing nonce is never excused, unless a profile says otherwise.
    package func excusesMissingNonce(_ claims: Claims) -> Bool { false }
    /// No rules beyond the generic checks, unless a profile says otherwise.
    package func check(_ claims: Claims, now: Double, leeway: Double) -> VerificationError? { nil }
    /// The clock's time, unless a profile says otherwise.
    package func evaluationInstant(_ claims: Claims) -> Double? { nil }
    /// Nothing nested to verify, unless a profile says otherwise.
    package func nestedTokens(_ claims: Claims) -> [NestedToken] { [] }
    /// Nothing to add, unless a profile says otherwise.
    package func complete(_ claims: Claims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>) -> Result<
        Claims?, VerificationError
    > {
        .success(nil)
    }

    package func readClaims(scanned payload: FlatJSONObject) -> Result<ProviderClaims, VerificationError> {
        do throws(VerificationError) {
            return .success(ProviderClaims(try read(ProviderClaimReader(payload: payload))))
        } catch {
            return .failure(error)
        }
    }

    package func readClaims(parsed payload: JSONNode) -> Result<ProviderClaims, VerificationError> {
        do throws(VerificationError) {
            return .success(ProviderClaims(try read(ProviderClaimReader(payload: payload))))
        } catch {
            return .failure(error)
        }
    }

    package func excusesMissingNonce(held claims: ProviderClaims) -> Bool {
        guard let claims = claims.held(Claims.self) else { return false }
        return excusesMissingNonce(claims)
    }

    package func check(held claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        guard let typed = claims.held(Claims.self) else { return Self.foreign(claims) }
        return check(typed, now: now, leeway: leeway)
    }

    package func evaluationInstant(held claims: ProviderClaims) -> Double? {
        claims.held(Claims.self).flatMap(evaluationInstant)
    }

    package func nestedTokens(held claims: ProviderClaims) -> [NestedToken] {
        claims.held(Claims.self).map(nestedTokens) ?? []
    }

    package func complete(held claims: ProviderClaims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>)
        -> Result<ProviderClaims, VerificationError>
    {
        guard let typed = claims.held(Claims.self) else { return .failure(Self.foreign(claims)) }
        return complete(typed, nested: nested).map { $0.map { ProviderClaims($0) } ?? claims }
    }

    /// ``read(_:)`` of any other object type (not on the pipeline's path).
    func readGenerically<Object: JSONObjectReading>(_ payload: Object) -> Result<ProviderClaims, VerificationError> {
        do throws(VerificationError) {
            return .success(ProviderClaims(try read(ProviderClaimReader(payload: payload))))
        } catch {
            return .failure(error)
        }
    }

    /// Claims another provider read, which these rules cannot judge: refused, never passed.
    private static func foreign(_ claims: ProviderClaims) -> VerificationError {
        VerificationError(.claimType, detail: "the claims were not read under the \(name) profile's rules")
    }
}

/// What the docs' provider tables say of a provider: the README's and DocC's tables are made from
/// these by `scripts/docs-tables`, and a test fails when they are stale.
package struct ProviderDocumentation: Sendable {
    /// What it verifies ("Sign in with Apple").
    package let title: String
    /// Its preset, as a symbol path under ``VerificationPolicy`` (`firebase(project:)`).
    package let preset: String
    /// The preset in use (Markdown).
    package let example: String
    /// The command line's flags for it (Markdown).
    package let commandLine: String
    /// Where its keys come from (Markdown; a ``KeySetSource`` link, or words).
    package let keys: String

    /// A provider's documentation.
    package init(title: String, preset: String, example: String, commandLine: String, keys: String) {
        self.title = title
        self.preset = preset
        self.example = example
        self.commandLine = commandLine
        self.keys = keys
    }
}

/// Where a provider's token keys come from.
package enum ProviderKeyOrigin: Sendable, Equatable {
    /// A key set: the preset's, or the caller's (`--jwks`).
    case keySet
    /// Each token's `x5c` chain to pinned roots (App Store signed data): no key set at all, and
    /// the token judged at its own `signedDate` unless a time is given.
    case certificateChain
}
