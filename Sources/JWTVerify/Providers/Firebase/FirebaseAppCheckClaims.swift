/// Firebase App Check tokens: `sub` is the Firebase app ID the token was minted for, required.
public struct FirebaseAppCheckClaims: ProviderClaimSet, Hashable {
    /// The Firebase app ID (`sub`), such as `1:123456789:ios:0a1b2c3d`.
    public let appID: String

    private init(appID: String) { self.appID = appID }

    /// `sub` must be a non-empty string: App Check's app ID.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> FirebaseAppCheckClaims
    {
        FirebaseAppCheckClaims(appID: try reader.requireSubject("the app ID"))
    }
}

extension FirebaseAppCheckClaims: ProviderClaimMembers {
    /// No members besides `sub` (which records repeat as `app_id`).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {}
}
