/// What one reading of a verified payload yields: the registered claims, the provider's claims
/// (or the rule they break), and for reports what could be read leniently.
struct PayloadRead {
    /// The registered claims when they type-check (``claimsError`` is `nil`), else empty.
    var claims = RegisteredClaims()
    /// Why the registered claims do not type-check.
    var claimsError: VerificationError?
    /// `nil` when the policy has no provider rules.
    var provider: Result<ProviderClaims, VerificationError>?
    /// Reports: the registered claims read without the type rules, when `claims` failed.
    var lenient: RegisteredClaims?
    /// Reports: `email_verified` as a boolean or "true"/"false".
    var emailVerified: Bool?
    /// The members the policy asked to keep (``VerificationPolicy/capturedClaims``), in its order.
    var captured: [JSONValue?] = []
    /// The first of the policy's claim rules that does not hold, if one does not.
    var claimRuleFailure: VerificationError?

    /// Moves the claims out, leaving none: the verified token takes them without a copy (a copy
    /// costs a reference count, for the payload the claims are kept in).
    mutating func takeClaims() -> RegisteredClaims { exchange(&claims, with: RegisteredClaims()) }

    /// Moves the provider's claims out, leaving none.
    mutating func takeProvider() -> Result<ProviderClaims, VerificationError>? { exchange(&provider, with: nil) }
}

/// The payload step as a ``JSONObjectConsumer``: registered claims and provider claims in one
/// pass over the object the parser produced (the fast scanner's or jansson's).
struct PayloadReading: JSONObjectConsumer {
    /// The provider's claims reader (``ProviderRules/claimsReader``).
    let provider: ProviderClaimsReader
    /// Whether `exp` is required (``ProviderRules/requiresExpiration``).
    let requiresExpiration: Bool
    let report: Bool
    /// The claims to keep as JSON values (none, usually).
    var captured: [ClaimPath]? = nil
    /// The policy's claim rules (none, usually).
    var claimRules: [ClaimRule]? = nil
    /// The bytes the object is parsed from, when the claims may keep their strings as places in
    /// them (``ClaimPlace``).
    var source: [UInt8]? = nil

    func consume<Object: JSONObjectReading>(_ object: Object) -> PayloadRead {
        var read = PayloadRead(provider: provider.read(object))
        if let captured { read.captured = captured.map { $0.value(in: object)?.value } }
        if let claimRules {
            for rule in claimRules {
                if let failure = rule.failure(in: object) {
                    read.claimRuleFailure = failure
                    break
                }
            }
        }
        let error = RegisteredClaims.read(
            object, into: &read.claims, requiresExpiration: requiresExpiration, source: source)
        read.claimsError = error
        if report {
            if error != nil { read.lenient = RegisteredClaims.readLeniently(object) }
            read.emailVerified = object.member("email_verified")?.lenientBool
        }
        // Moved out, not copied (a copy costs a reference count per object it holds).
        return exchange(&read, with: PayloadRead())
    }
}

/// A rejected token's payload, read without trust for reports.
struct UnverifiedPayloadReading: JSONObjectConsumer {
    func consume<Object: JSONObjectReading>(_ object: Object) -> (claims: RegisteredClaims, emailVerified: Bool?) {
        (RegisteredClaims.readLeniently(object), object.member("email_verified")?.lenientBool)
    }
}

/// A rejected token's payload read without trust, for reports: its registered claims (without
/// the type rules) and `email_verified`. Never a basis for accepting anything.
package enum UnverifiedPayload {
    /// Reads a decoded payload; `nil` when it is not a JSON object.
    package static func read(_ payload: UnsafeRawBufferPointer) -> (claims: RegisteredClaims, emailVerified: Bool?)? {
        guard case .success(let read) = JSONObjectParser.parse(payload, UnverifiedPayloadReading()) else { return nil }
        return read
    }

    /// Decodes and reads the payload segment of the compact token `token`; `nil` when it has no
    /// three segments or its payload is not strict base64url of a JSON object.
    package static func read(token: UnsafeRawBufferPointer) -> (claims: RegisteredClaims, emailVerified: Bool?)? {
        guard case .success(let jws) = CompactJWS.split(token) else { return nil }
        let segment = UnsafeRawBufferPointer(rebasing: token[jws.payload])
        return withUnsafeTemporaryAllocation(byteCount: max(segment.count, 1), alignment: 8) { scratch in
            guard let length = Base64URL.decode(segment, into: scratch) else { return nil }
            return read(UnsafeRawBufferPointer(rebasing: scratch[..<length]))
        }
    }
}
