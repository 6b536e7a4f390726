/// Firebase App Check tokens: `sub` is the Firebase app ID the token was minted for, required.
public struct FirebaseAppCheckClaims: ProviderClaimSet, Hashable {
    /// The Firebase app ID (`sub`), such as `1:123456789:ios:0a1b2c3d`.
    public let appID: String

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard token.provider.kind == .firebaseAppCheck, let appID = token.claims.subject else { return nil }
        self.appID = appID
    }

    /// `sub` must be a non-empty string: App Check's app ID.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        try reader.requireSubject("the app ID")
    }
}
