/// App Store signed data (`--profile app-store`): keys from each token's chain.
package enum AppStoreProfile: ProviderProfile {
    package static let kind = ProviderRules.Kind.appStore
    package static let name = "app-store"
    package static let keySet: (preset: String, source: KeySetSource)? = nil
    package static let keyOrigin = ProviderKeyOrigin.certificateChain
    package static let settings: Set<ProfileSetting> = [.bundleIDs, .environment, .appAppleID, .appStoreTrust, .onlineChecks]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { forService ? [.bundleIDs] : [] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        VerificationPolicy(
            issuers: nil, audiences: nil, algorithms: [.es256],
            rules: .appStore(
                bundleIDs: settings.bundleIDs, environment: settings.environment, appAppleID: settings.appAppleID, trust: settings.appStoreTrust,
                onlineChecks: settings.onlineChecks))
    }
}
