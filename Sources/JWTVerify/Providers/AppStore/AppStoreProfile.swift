/// App Store signed data (`--profile app-store`): keys from each token's chain, judged at its
/// `signedDate`.
package struct AppStoreProfile: ProviderProfile {
    package static let name = "app-store"
    package static let keySet: (preset: String, source: KeySetSource)? = nil
    package static let keyOrigin = ProviderKeyOrigin.certificateChain
    package static let evaluationClaim: String? = "signedDate"
    package static let reportFacets: [(name: String, title: String)] = [
        ("by_kind", "App Store: by kind"), ("by_environment", "App Store: by environment"),
        ("by_product", "App Store: by product"),
        ("by_notification_type", "App Store: by notification type"),
    ]
    package static let settings: Set<ProfileSetting> = [
        .bundleIDs, .environment, .appAppleID, .appStoreTrust, .onlineChecks,
    ]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { forService ? [.bundleIDs] : [] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        VerificationPolicy(
            issuers: nil, audiences: nil, algorithms: [.es256],
            rules: .appStore(
                bundleIDs: settings.bundleIDs, environment: settings.environment, appAppleID: settings.appAppleID,
                trust: settings.appStoreTrust,
                onlineChecks: settings.onlineChecks))
    }

    /// Accepted bundle IDs; `nil`: not checked (audits).
    let bundleIDs: [String]?
    let environment: AppStoreEnvironment?
    let appAppleID: Int64?
    let trust: AppStoreTrust
    /// OCSP for the leaf and the intermediate, and the chain judged at the current time.
    let onlineChecks: Bool

    package var requiresExpiration: Bool { false }
    package var certificateTrust: (roots: AppStoreTrust, onlineChecks: Bool)? { (trust, onlineChecks) }
    package var receivesNotifications: Bool { true }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> ProviderClaims {
        .appStore(try AppStoreClaims(reading: reader.payload))
    }

    package func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        guard case .appStore(let appStore) = claims else { return nil }
        return appStore.check(bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID)
    }

    /// `signedDate` (milliseconds), in seconds.
    package func evaluationInstant(_ claims: ProviderClaims) -> Double? {
        guard case .appStore(let appStore) = claims, let signed = appStore.signedDate else { return nil }
        return signed / 1000
    }

    /// A notification's nested transaction and renewal info, verified as tokens of their own.
    package func complete(_ claims: ProviderClaims, verifier: Verifier, time: EvaluationTime) -> Result<
        ProviderClaims, VerificationError
    > {
        guard case .appStore(let appStore) = claims, appStore.kind == .notification else { return .success(claims) }
        return verifier.verifyNestedSignedData(appStore, time: time).map { .appStore($0) }
    }
}
