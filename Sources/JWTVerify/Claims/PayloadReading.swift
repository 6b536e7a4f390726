/// What one reading of a verified payload yields: the registered claims, the provider's claims
/// (or the rule they break), and for reports what could be read leniently.
struct PayloadRead {
    var claims: Result<RegisteredClaims, VerificationError>
    /// `nil` when the policy has no provider rules.
    var provider: Result<ProviderClaims, VerificationError>?
    /// Reports: the registered claims read without the type rules, when `claims` failed.
    var lenient: RegisteredClaims?
    /// Reports: `email_verified` as a boolean or "true"/"false".
    var emailVerified: Bool?
}

/// The payload step as a ``JSONObjectConsumer``: registered claims and provider claims in one
/// pass over the object the parser produced (the fast scanner's or jansson's).
struct PayloadReading: JSONObjectConsumer {
    let rules: ProviderRules
    let report: Bool

    func consume<Object: JSONObjectReading>(_ object: Object) -> PayloadRead {
        let claims = RegisteredClaims.read(object)
        var read = PayloadRead(claims: claims, provider: rules == .none ? nil : rules.read(object))
        if report {
            if case .failure = claims { read.lenient = RegisteredClaims.readLeniently(object) }
            read.emailVerified = object.member("email_verified")?.lenientBool
        }
        return read
    }
}

/// A rejected token's payload, read without trust for reports.
struct UnverifiedPayloadReading: JSONObjectConsumer {
    func consume<Object: JSONObjectReading>(_ object: Object) -> (claims: RegisteredClaims, emailVerified: Bool?) {
        (RegisteredClaims.readLeniently(object), object.member("email_verified")?.lenientBool)
    }
}
