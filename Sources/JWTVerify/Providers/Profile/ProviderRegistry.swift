/// The providers, in the order help texts and docs list them: adding a provider is its file and
/// one line here.
package enum ProviderRegistry {
    /// Every provider's profile.
    package static let profiles: [any ProviderProfile.Type] = [
        AppleIdentityProfile.self,
        AppleNotificationProfile.self,
        AppStoreProfile.self,
        FirebaseProfile.self,
        FirebaseSessionProfile.self,
        FirebaseAppCheckProfile.self,
        FirebasePhoneNumberProfile.self,
        GoogleProfile.self,
        OIDCProfile.self,
        AccessTokenProfile.self,
    ]

    /// The profile named exactly `name` (its bytes: a Unicode-equivalent spelling names none).
    package static func profile(named name: String) -> (any ProviderProfile.Type)? {
        profiles.first { exactlyEquals($0.name, name) }
    }

    /// Every profile's settings, each once, in the order the profiles declare them, without the
    /// generic ones (``ProfileSetting/generic``): what the command line makes flags of.
    package static var settings: [ProfileSetting] {
        var seen: Set<ProfileSetting> = Set(ProfileSetting.generic)
        return profiles.flatMap { $0.settings }.filter { seen.insert($0).inserted }
    }

    /// The profiles that take `setting`, in order.
    package static func takers(of setting: ProfileSetting) -> [any ProviderProfile.Type] {
        profiles.filter { $0.settings.contains(setting) }
    }

    /// Every provider's report facets, in order (``ProviderProfile/reportFacets``).
    package static var reportFacets: [(name: String, title: String)] { profiles.flatMap { $0.reportFacets } }

    /// The key-set presets, in order, each once (providers may share one).
    package static var keySetPresets: [(name: String, source: KeySetSource)] {
        var seen: Set<ExactBytes> = []
        return profiles.compactMap { $0.keySet }.filter { seen.insert(ExactBytes($0.preset)).inserted }
            .map { ($0.preset, $0.source) }
    }
}
