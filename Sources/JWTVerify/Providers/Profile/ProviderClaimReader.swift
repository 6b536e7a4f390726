/// What every provider's reading takes from a payload: typed members, or the type rule broken.
package struct ProviderClaimReader<Object: JSONObjectReading> {
    package let payload: Object

    /// A string member, when present.
    func string(_ name: StaticString) throws(VerificationError) -> String? {
        guard let node = payload.member(name) else { return nil }
        guard let value = node.string else { throw VerificationError(.claimType, detail: "\(name) is not a string") }
        return value
    }

    /// A boolean member, when present: `true`/`false`, or the strings `"true"`/`"false"`.
    func flag(_ name: StaticString) throws(VerificationError) -> Bool? {
        guard let node = payload.member(name) else { return nil }
        guard let value = node.lenientBool else {
            throw VerificationError(.claimType, detail: "\(name) is neither a boolean nor \"true\"/\"false\"")
        }
        return value
    }

    /// A number member, when present.
    func number(_ name: StaticString) throws(VerificationError) -> Double? {
        guard let node = payload.member(name) else { return nil }
        guard let value = node.number else { throw VerificationError(.claimType, detail: "\(name) is not a number") }
        return value
    }

    /// `sub`, which must be a non-empty string (what it names is `meaning`, for the detail).
    func requireSubject(_ meaning: String) throws(VerificationError) -> String {
        guard let subject = payload.member("sub")?.string, !subject.isEmpty else {
            throw VerificationError(.claimType, detail: "sub (\(meaning)) must be a non-empty string")
        }
        return subject
    }

    /// `iat`, which the provider always sends.
    func requireIssuedAt() throws(VerificationError) {
        guard payload.member("iat") != nil else { throw VerificationError(.claimType, detail: "iat is missing") }
    }
}
