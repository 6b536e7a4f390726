/// Firebase phone-number verification tokens: `sub` is the verified phone number, required.
public struct FirebasePhoneNumberClaims: ProviderClaimSet, Hashable {
    /// The verified phone number (`sub`), as Firebase sends it (E.164, such as `+15555550100`).
    public let phoneNumber: String

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard token.provider.kind == .firebasePhoneNumber, let phoneNumber = token.claims.subject else { return nil }
        self.phoneNumber = phoneNumber
    }

    /// `sub` must be a non-empty string: the phone number.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        try reader.requireSubject("the phone number")
    }
}
