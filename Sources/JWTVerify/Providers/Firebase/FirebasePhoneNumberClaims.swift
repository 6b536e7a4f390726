/// Firebase phone-number verification tokens: `sub` is the verified phone number, required.
public struct FirebasePhoneNumberClaims: ProviderClaimSet, Hashable {
    /// The verified phone number (`sub`), as Firebase sends it (E.164, such as `+15555550100`).
    public let phoneNumber: String

    private init(phoneNumber: String) { self.phoneNumber = phoneNumber }

    /// `sub` must be a non-empty string: the phone number.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError)
        -> FirebasePhoneNumberClaims
    {
        FirebasePhoneNumberClaims(phoneNumber: try reader.requireSubject("the phone number"))
    }
}

extension FirebasePhoneNumberClaims: ProviderClaimMembers {
    /// No members besides `sub` (which records repeat as `phone_number`).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {}
}
