#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything that decides a verdict apart from the keys: issuers, audiences, algorithms, leeway,
/// clock, size limit, and the provider's own rules.
///
/// A policy is a plain `Sendable` value: build it once, hand it to
/// ``Verifier/init(keys:policy:cache:proofRecorder:)`` or
/// ``RemoteVerifier/init(keySet:policy:cache:refreshWait:proofRecorder:)``, and every face (library,
/// CLI, server, Spark job) applies exactly the same checks in the same order. Provider presets fill
/// in what the provider fixes (issuer, algorithm, where its keys live, its claim rules):
///
/// ```swift
/// let apple = VerificationPolicy.appleIdentityToken(audiences: ["com.example.app"])
/// let firebase = VerificationPolicy.firebase(project: "my-project")
/// ```
public struct VerificationPolicy: Sendable {
    /// The accepted `iss` values (any of them); `nil` leaves `iss` unchecked (audits only).
    /// An empty list would accept no token: setting one stops the program (as `leeway` does).
    public var issuers: [String]? {
        didSet { Self.requireAcceptsSome(issuers, "issuers", "iss") }
    }
    /// The accepted `aud` values (any of them); `nil` leaves `aud` unchecked (audits only).
    /// An empty list would accept no token: setting one stops the program.
    public var audiences: [String]? {
        didSet { Self.requireAcceptsSome(audiences, "audiences", "aud") }
    }
    /// The accepted `alg` values; never empty (setting an empty set stops the program).
    public var algorithms: Set<SignatureAlgorithm> {
        didSet { Self.requireAcceptsSome(Array(algorithms), "algorithms", "alg") }
    }
    /// Clock-skew allowance in seconds (finite, ≥ 0), applied to `exp`, `nbf`, `iat` and `auth_time`.
    ///
    /// Setting a negative or non-finite value stops the program: a leeway of −10⁹ s would reject
    /// everything, and an infinite one would accept expired tokens.
    public var leeway: Double {
        get { checkedLeeway }
        set {
            precondition(newValue >= 0 && newValue.isFinite, "leeway must be a finite number of seconds >= 0")
            checkedLeeway = newValue
        }
    }
    private var checkedLeeway: Double
    /// Longest token accepted, in octets (≥ 0); checked before anything else. Setting a negative
    /// value stops the program.
    public var maxTokenBytes: Int {
        get { checkedMaxTokenBytes }
        set {
            precondition(newValue >= 0, "maxTokenBytes must not be negative")
            checkedMaxTokenBytes = newValue
        }
    }
    private var checkedMaxTokenBytes: Int
    /// The current time in seconds since the epoch (injectable for tests and audits).
    public var clock: @Sendable () -> Double
    /// The provider's own rules, run after the generic checks over the payload already parsed.
    public var rules: ProviderRules
    /// Where the provider publishes its keys, for presets that have one place.
    public var keySource: KeySetSource?
    /// Whether every call must bring the raw nonce (``NonceRequirement/required``) or a nonce is
    /// checked only when a call gives one. Sign in with Apple requires it: replay protection is
    /// what the nonce is for, so leaving out the argument never turns the check off.
    public var nonceRequirement: NonceRequirement
    /// Authorization rules on claims, every one of which must hold (else `claim_mismatch`):
    /// checked after all other checks, the provider's rules included, on every face
    /// (`--require-claim PATH=VALUE`). None by default.
    public var claimRules: [ClaimRule] = []
    /// Whether DPoP proofs (RFC 9449) are taken and required: ``DPoPPolicy/off`` by default, which
    /// refuses a token bound to a key (`cnf.jkt`) as `dpop_missing`. See ``Verifier/verify(_:dpop:nonce:at:)``.
    public var dpop: DPoPPolicy = .off
    /// Claims kept as JSON values with every verified token, read in the same pass as the others
    /// (a gateway's claim headers, dotted paths allowed): ``VerifiedToken/capturedClaim(at:)``.
    package var capturedClaims: [ClaimPath] = []

    /// Whether a verification call must pass the raw nonce.
    public enum NonceRequirement: Sendable, Hashable {
        /// Every call must pass the raw nonce: a call without one is rejected as `nonce_missing`
        /// (even a cache hit).
        case required
        /// This service uses no nonces: a call without one checks none; a raw nonce a call does
        /// pass is still checked.
        case checkedWhenGiven
    }

    /// The default token size limit: 64 KiB.
    public static let defaultMaxTokenBytes = 65536
    /// The default leeway: 60 seconds.
    public static let defaultLeeway = 60.0

    /// The system's wall clock, with sub-second precision.
    public static let systemClock: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A policy from its parts.
    ///
    /// A policy that could accept no token is refused here, when it is built, not discovered as
    /// `audience_mismatch` on every token: an empty `issuers`, `audiences` or `algorithms` list
    /// stops the program with a message that says so (pass `nil` to leave `iss` or `aud`
    /// unchecked, for audits). A list that comes from configuration is checked by
    /// ``profile(named:_:)``, which throws instead.
    ///
    /// - Parameters:
    ///   - issuers: accepted issuers; `nil` only for signature-and-time audits, never for sign-ins.
    ///   - audiences: accepted audiences (bundle IDs, Services IDs, client IDs, project IDs); `nil`
    ///     as for `issuers`.
    ///   - algorithms: the `alg` allow-list; RS256 and ES256 by default.
    ///   - leeway: clock-skew allowance in seconds (≥ 0), 60 by default.
    ///   - maxTokenBytes: longest token accepted, 65536 by default.
    ///   - clock: the time source, the system clock by default.
    ///   - rules: provider rules, none by default.
    ///   - keySource: the provider's key source, if it has one.
    ///   - nonceRequirement: whether every call must pass a raw nonce; not by default.
    public init(
        issuers: [String]?,
        audiences: [String]?,
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed,
        leeway: Double = VerificationPolicy.defaultLeeway,
        maxTokenBytes: Int = VerificationPolicy.defaultMaxTokenBytes,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock,
        rules: ProviderRules = .none,
        keySource: KeySetSource? = nil,
        nonceRequirement: NonceRequirement = .checkedWhenGiven
    ) {
        precondition(leeway >= 0 && leeway.isFinite, "leeway must be a finite number of seconds >= 0")
        precondition(maxTokenBytes >= 0, "maxTokenBytes must not be negative")
        Self.requireAcceptsSome(issuers, "issuers", "iss")
        Self.requireAcceptsSome(audiences, "audiences", "aud")
        Self.requireAcceptsSome(Array(algorithms), "algorithms", "alg")
        self.issuers = issuers
        self.audiences = audiences
        self.algorithms = algorithms
        self.checkedLeeway = leeway
        self.checkedMaxTokenBytes = maxTokenBytes
        self.clock = clock
        self.rules = rules
        self.keySource = keySource
        self.nonceRequirement = nonceRequirement
    }

    /// Stops the program when `list` is empty: a policy with it would accept no token.
    private static func requireAcceptsSome<T>(_ list: [T]?, _ name: StaticString, _ claim: StaticString) {
        guard let list else { return }
        precondition(
            !list.isEmpty,
            "VerificationPolicy: \(name) is empty, so the policy would accept no token (every \(claim) refused); "
                + "give at least one, or nil to leave \(claim) unchecked")
    }

    /// Any issuer's tokens: `iss` exactly `issuer`, `aud` one of `audiences`, no provider rules.
    public static func generic(
        issuer: String, audiences: [String], algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed
    ) -> VerificationPolicy {
        VerificationPolicy(issuers: [issuer], audiences: audiences, algorithms: algorithms)
    }

    /// This policy with another leeway.
    public func leeway(_ seconds: Double) -> VerificationPolicy {
        var copy = self
        copy.leeway = seconds
        return copy
    }

    /// This policy with another clock.
    public func clock(_ clock: @escaping @Sendable () -> Double) -> VerificationPolicy {
        var copy = self
        copy.clock = clock
        return copy
    }
}
