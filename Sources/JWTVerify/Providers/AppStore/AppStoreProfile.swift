/// App Store signed data (`--profile app-store`): keys from each token's chain, judged at its
/// `signedDate`.
package struct AppStoreProfile: ProviderProfile {
    package typealias Claims = AppStoreClaims
    package static let name = "app-store"
    package static let documentation = ProviderDocumentation(
        title: "App Store signed data",
        preset: "appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)",
        example:
            "`.appStore(bundleIDs: [\"com.example.app\"])` (keys from the token's `x5c` chain, validated to Apple's root)",
        commandLine: "`--profile app-store --bundle-id com.example.app`",
        keys: "each token's `x5c` chain")
    package static let keySet: (preset: String, source: KeySetSource)? = nil
    package static let keyOrigin = ProviderKeyOrigin.certificateChain
    package static let evaluationClaim: String? = "signedDate"
    package static let reportFacets: [(name: String, title: String)] = [
        ("by_kind", "App Store: by kind"), ("by_environment", "App Store: by environment"),
        ("by_product", "App Store: by product"),
        ("by_notification_type", "App Store: by notification type"),
    ]
    package static let settings: [ProfileSetting] = [
        .bundleIDs, .environment, .appAppleID, .appStoreTrust, .onlineChecks,
    ]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { forService ? [.bundleIDs] : [] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) throws(VerificationPolicy.ProfileError)
        -> VerificationPolicy
    {
        if let bundleIDs = settings.bundleIDs, bundleIDs.isEmpty {
            throw VerificationPolicy.ProfileError(
                description: "the \(name) profile has an empty list of bundle IDs, so it would accept no token")
        }
        return VerificationPolicy(
            issuers: nil, audiences: nil, algorithms: [.es256],
            rules: .appStore(
                bundleIDs: settings.bundleIDs, environment: settings.environment, appAppleID: settings.appAppleID,
                trust: try settings.resolvedAppStoreTrust(),
                onlineChecks: settings.onlineChecks))
    }
    package static let reasons = [
        ReasonEntry(
            .x5cInvalid,
            "App Store: the header's `x5c` is missing, not three certificates, not standard base64, or not DER",
            stage: .keyChoice),
        ReasonEntry(
            .untrustedChain,
            "App Store: the chain does not lead to a pinned root, lacks one of Apple's extensions, or is not valid at "
                + "the evaluation time",
            stage: .keyChoice),
        ReasonEntry(
            .certificateRevoked, "App Store, with online checks: a certificate of the chain is revoked",
            stage: .keyChoice),
        ReasonEntry(
            .revocationUnavailable,
            "App Store, with online checks: no trustworthy revocation answer came (retryable, not a verdict)",
            stage: .keyChoice, answer: .unavailable),
        ReasonEntry(.bundleMismatch, "App Store: the payload's bundle ID is not among the configured ones"),
        ReasonEntry(
            .appAppleIDMismatch,
            "App Store: a production notification's or AppTransaction's `appAppleId` is not the configured one; a "
                + "realtime request's names another app, or is a production one and no app Apple ID is configured"),
        ReasonEntry(
            .environmentMismatch,
            "App Store: the environment is not the configured one, or is Xcode or LocalTesting (never accepted)"),
    ]
    /// Accepted bundle IDs; `nil`: not checked (audits).
    let bundleIDs: [String]?
    let environment: AppStoreEnvironment?
    let appAppleID: Int64?
    let trust: AppStoreTrust
    /// OCSP for the leaf and the intermediate, and the chain judged at the current time.
    let onlineChecks: Bool

    package var requiresExpiration: Bool { false }
    package var receivesNotifications: Bool { true }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AppStoreClaims {
        try AppStoreClaims(reading: reader.payload)
    }

    package func check(_ claims: AppStoreClaims, now: Double, leeway: Double) -> VerificationError? {
        claims.check(bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID)
    }

    /// `signedDate` (milliseconds), in seconds.
    package func evaluationInstant(_ claims: AppStoreClaims) -> Double? { claims.signedDate.map { $0 / 1000 } }

    /// A notification's nested transaction, renewal info and AppTransaction, each to be verified
    /// as a token of its own under this policy (its own chain, signature, kind and rules, at its
    /// own `signedDate` unless the call gives a time).
    package func nestedTokens(_ claims: AppStoreClaims) -> [NestedToken] {
        guard claims.kind == .notification else { return [] }
        return claims.nestedSignedData.compactMap(\.token)
    }

    /// The notification with its nested signed data verified and attached; a nested token that
    /// failed fails the notification, with its reason and the field it came in.
    package func complete(_ claims: AppStoreClaims, nested: ArraySlice<Result<VerifiedToken, VerificationError>>)
        -> Result<AppStoreClaims?, VerificationError>
    {
        guard claims.kind == .notification else { return .success(nil) }
        return claims.completed(with: nested).map { $0 }
    }
}

extension VerificationError.Reason {
    /// App Store: the header's `x5c` is missing, not three certificates, not standard base64, or
    /// not DER.
    public static let x5cInvalid = VerificationError.Reason(rawValue: "x5c_invalid")

    /// App Store: the `x5c` chain does not lead to a pinned root, lacks one of Apple's
    /// extensions, or is not valid at the evaluation time.
    public static let untrustedChain = VerificationError.Reason(rawValue: "untrusted_chain")

    /// App Store: a certificate of the chain is revoked (online checks).
    public static let certificateRevoked = VerificationError.Reason(rawValue: "certificate_revoked")

    /// App Store: the chain's revocation status could not be had (online checks); retryable,
    /// not a verdict on the token.
    public static let revocationUnavailable = VerificationError.Reason(rawValue: "revocation_unavailable")

    /// App Store: the payload's bundle ID is not among the configured ones.
    public static let bundleMismatch = VerificationError.Reason(rawValue: "bundle_mismatch")

    /// App Store: the payload's environment is not the configured one, or is Xcode or
    /// LocalTesting (never accepted).
    public static let environmentMismatch = VerificationError.Reason(rawValue: "environment_mismatch")

    /// App Store: a production notification's or AppTransaction's `appAppleId` is not the
    /// configured one; a realtime request's names another app, or is a production one and no app
    /// Apple ID is configured.
    public static let appAppleIDMismatch = VerificationError.Reason(rawValue: "app_apple_id_mismatch")
}

extension VerificationPolicy {
    /// App Store signed data: StoreKit 2 transactions and renewal infos, App Store Server
    /// Notifications V2 (their nested transaction, renewal info and AppTransaction verified too),
    /// AppTransactions and Retention Messaging realtime requests, typed as ``AppStoreClaims``.
    ///
    /// The one policy whose key comes from the token: ES256 only; the header's `x5c` must hold
    /// three certificates, of which the leaf and the intermediate must validate to a root of
    /// `trust` (Apple Root CA - G3 by default; the root the token sends is never trusted) with
    /// Apple's extensions, at the call's time when given, else at the payload's `signedDate`
    /// (then required). Then, in Apple's order: the bundle ID among `bundleIDs` (renewal infos
    /// and realtime requests carry none), the app Apple ID of production notifications and
    /// AppTransactions when `appAppleID` is set, and the environment when `environment` is set.
    /// A realtime request is bound to its app by its `appAppleId` alone: it must be `appAppleID`
    /// when that is set, and a production one is refused when it is not. Data signed in Xcode
    /// or for local testing is always refused: its signature is not Apple's.
    ///
    /// - Parameters:
    ///   - bundleIDs: your apps' bundle IDs, at least one: an empty list, which would accept no
    ///     token, stops the program.
    ///   - environment: `Production` or `Sandbox`, when one is required.
    ///   - appAppleID: your app's Apple ID, checked on production notifications and AppTransactions,
    ///     and on realtime requests (required for production ones).
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
}

extension ProviderRules {
    /// App Store signed data (see ``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``);
    /// `bundleIDs: nil` checks no bundle ID (for audits of captured data, never for a service).
    public static func appStore(
        bundleIDs: [String]?, environment: AppStoreEnvironment? = nil, appAppleID: Int64? = nil,
        trust: AppStoreTrust = .appleRootCAG3,
        onlineChecks: Bool = false
    ) -> ProviderRules {
        ProviderRules(
            AppStoreProfile(
                bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID, trust: trust,
                onlineChecks: onlineChecks))
    }
}

extension AppStoreProfile: CertificateChainKeys {
    /// The leaf's key once the chain leads to one of ``trust``'s roots (with online checks, not
    /// revoked).
    package func chainKey(leaf: String, intermediate: String) -> Result<
        (key: EVPPublicKey, validity: ClosedRange<Double>), VerificationError
    > {
        trust.chain(leaf: leaf, intermediate: intermediate, onlineChecks: onlineChecks).map { ($0.key, $0.validity) }
    }

    /// With online checks, the chain is judged now.
    package var judgesChainNow: Bool { onlineChecks }

    /// Without online checks, under a trust that remembers validated chains.
    package var remembersChains: Bool { !onlineChecks && trust.remembersChains }

    /// ``AppStoreTrust/judge(_:at:)``.
    package func judge(_ validity: ClosedRange<Double>, at instant: Double) -> VerificationError? {
        AppStoreTrust.judge(validity, at: instant)
    }
}
