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

    /// `iss`, which must be exactly `issuer` (the rules' own setting, checked even when the
    /// policy's issuers say otherwise).
    func requireIssuer(_ issuer: [UInt8]) throws(VerificationError) {
        guard let bytes = payload.member("iss")?.stringBytes, bytes.elementsEqual(issuer) else {
            throw VerificationError(.issuerMismatch, detail: "iss is not the one these provider rules are for")
        }
    }

    /// `aud`, a string or an array of strings, which must name one of `audiences` (the rules' own
    /// setting, checked even when the policy's audiences say otherwise).
    func requireAudience(oneOf audiences: [[UInt8]]) throws(VerificationError) {
        func accepted(_ node: Object.Value) -> Bool {
            guard let bytes = node.stringBytes else { return false }
            return audiences.contains { bytes.elementsEqual($0) }
        }
        if let aud = payload.member("aud") {
            if aud.kind == .string, accepted(aud) { return }
            if aud.kind == .array, (0..<aud.count).contains(where: { aud[$0].map(accepted) ?? false }) { return }
        }
        throw VerificationError(
            .audienceMismatch, detail: "aud names none of the audiences these provider rules are for")
    }
}
