#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything that decides a verdict apart from the keys: issuers, audiences, algorithms, leeway,
/// clock, size limit, and the provider's own rules.
///
/// A policy is a plain `Sendable` value: build it once, hand it to ``Verifier/init(keys:policy:cache:)``
/// or ``RemoteVerifier/init(keySet:policy:cache:refreshWait:)``, and every face (library, CLI, server, Spark job)
/// applies exactly the same checks in the same order. Provider presets fill in what the provider
/// fixes (issuer, algorithm, where its keys live, its claim rules):
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
    /// Claims kept as JSON values with every verified token, read in the same pass as the others
    /// (a gateway's claim headers): ``VerifiedToken/capturedClaim(at:)``.
    package var capturedClaims: [String] = []

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

    /// Apple's server-to-server notifications: verified like identity tokens, and the `events`
    /// claim (a JSON object in a string) must be there with a `type`. A notification's POST body
    /// `{"payload": "<JWS>"}` is accepted in place of the JWS.
    public static func appleNotification(audiences: [String]) -> VerificationPolicy {
        VerificationPolicy(
            issuers: [appleIssuer], audiences: audiences, algorithms: [.rs256], rules: .appleNotification,
            keySource: .apple)
    }

    /// Firebase Authentication ID tokens of `project`: `iss` `https://securetoken.google.com/<project>`
    /// and `aud` the project, both from configuration, never from the token; `sub` non-empty and at
    /// most 128 characters, `auth_time` required and not in the future.
    public static func firebase(project: String) -> VerificationPolicy {
        VerificationPolicy(
            issuers: ["https://securetoken.google.com/" + project], audiences: [project], algorithms: [.rs256],
            rules: .firebase(project: project), keySource: .firebase)
    }

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

    /// Firebase phone-number verification tokens of `project`: ES256, header `typ` and `kid`
    /// required, `iss` and `aud` both `https://fpnv.googleapis.com/projects/<project>` (from
    /// configuration, never from the token), `sub` the phone number (``FirebasePhoneNumberClaims``),
    /// keys from ``KeySetSource/firebasePhoneNumber``. The policy's ``leeway`` applies.
    public static func firebasePhoneNumber(project: String) -> VerificationPolicy {
        let issuer = "https://fpnv.googleapis.com/projects/" + project
        return VerificationPolicy(
            issuers: [issuer], audiences: [issuer], algorithms: [.es256], rules: .firebasePhoneNumber(project: project),
            keySource: .firebasePhoneNumber)
    }

    /// App Store signed data: StoreKit 2 transactions and renewal infos, App Store Server
    /// Notifications V2 (their nested transaction and renewal info verified too) and
    /// AppTransactions, typed as ``AppStoreClaims``.
    ///
    /// The one policy whose key comes from the token: ES256 only; the header's `x5c` must hold
    /// three certificates, of which the leaf and the intermediate must validate to a root of
    /// `trust` (Apple Root CA - G3 by default; the root the token sends is never trusted) with
    /// Apple's extensions, at the call's time when given, else at the payload's `signedDate`
    /// (then required). Then, in Apple's order: the bundle ID among `bundleIDs` (renewal infos
    /// carry none), the app Apple ID of production notifications and AppTransactions when
    /// `appAppleID` is set, and the environment when `environment` is set. Data signed in Xcode
    /// or for local testing is always refused: its signature is not Apple's.
    ///
    /// - Parameters:
    ///   - bundleIDs: your apps' bundle IDs, at least one: an empty list, which would accept no
    ///     token, stops the program.
    ///   - environment: `Production` or `Sandbox`, when one is required.
    ///   - appAppleID: your app's Apple ID, checked on production notifications and AppTransactions.
    ///   - trust: the roots (``AppStoreTrust/appleRootCAG3`` unless you test with your own).
    ///   - onlineChecks: ask the OCSP responders the leaf and the intermediate name whether they
    ///     are revoked (answers kept 15 minutes; `certificate_revoked`, or the retryable
    ///     `revocation_unavailable` when no trustworthy answer came), and judge the chain at the
    ///     current time instead of `signedDate`. Each check blocks the verifying thread up to 5 s.
    ///     The OCSP exchanges go through `trust`'s transport (``AppStoreTrust/checkingRevocation(through:)``,
    ///     e.g. `JWTVerifyRemote`'s `HTTPOCSPTransport`); without one, every check is `revocation_unavailable`.
    public static func appStore(
        bundleIDs: [String], environment: AppStoreEnvironment? = nil, appAppleID: Int64? = nil,
        trust: AppStoreTrust = .appleRootCAG3,
        onlineChecks: Bool = false
    ) -> VerificationPolicy {
        precondition(
            !bundleIDs.isEmpty, "VerificationPolicy.appStore: bundleIDs is empty, so the policy would accept no token")
        return VerificationPolicy(
            issuers: nil, audiences: nil, algorithms: [.es256],
            rules: .appStore(
                bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID, trust: trust,
                onlineChecks: onlineChecks))
    }

    /// Google ID tokens: `iss` `https://accounts.google.com` or `accounts.google.com`, RS256.
    ///
    /// - Parameters:
    ///   - audiences: the accepted `aud` values: your OAuth client IDs.
    ///   - hostedDomain: when set, `hd` must be exactly this (else `hosted_domain_mismatch`).
    ///   - authorizedParty: when set, an `azp` the token carries must be this (else `audience_mismatch`).
    public static func google(audiences: [String], hostedDomain: String? = nil, authorizedParty: String? = nil)
        -> VerificationPolicy
    {
        VerificationPolicy(
            issuers: ["https://accounts.google.com", "accounts.google.com"], audiences: audiences, algorithms: [.rs256],
            rules: .google(hostedDomain: hostedDomain, authorizedParty: authorizedParty), keySource: .google)
    }

    /// Any OpenID Connect issuer: the generic checks, with `sub`, `email` and `email_verified` typed.
    public static func oidc(
        issuer: String, audiences: [String], algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed
    ) -> VerificationPolicy {
        VerificationPolicy(issuers: [issuer], audiences: audiences, algorithms: algorithms, rules: .oidc)
    }

    /// Apple's issuer.
    public static let appleIssuer = "https://appleid.apple.com"

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
