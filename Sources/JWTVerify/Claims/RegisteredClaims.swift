/// The registered claims (RFC 7519 §4.1) the verifier checks, typed.
///
/// NumericDates keep their exact value (fractions included) as seconds since the epoch.
public struct RegisteredClaims: Sendable, Hashable {
    /// `iss`.
    public var issuer: String?
    /// `sub`.
    public var subject: String?
    /// `aud` as a list (a single string becomes one element); `nil` when absent.
    public var audience: [String]?
    /// `exp`.
    public var expiresAt: Double?
    /// `nbf`.
    public var notBefore: Double?
    /// `iat`.
    public var issuedAt: Double?
    /// `nonce` (the hash the provider copied from the sign-in request).
    public var nonce: String?
    /// Whether `aud` was written as an array (even of one member).
    public var audienceIsArray = false

    /// Whether records write `aud` as an array: it was one, or it does not hold exactly one
    /// audience.
    package var audienceIsList: Bool { audience.map { audienceIsArray || $0.count != 1 } ?? false }

    /// Largest NumericDate accepted: 2^53 − 1, the largest integer a double holds exactly.
    static let maximumNumericDate = 9_007_199_254_740_991.0

    /// Claims with every member absent.
    public init() {}

    /// Reads and type-checks the registered claims of a payload object.
    ///
    /// `iss`, `sub`, `jti`, `nonce` must be strings; `aud` a string or an array of strings; `exp`,
    /// `nbf`, `iat` numbers within 0 … 2^53 − 1; `exp` is required. (`jti` is type-checked under
    /// every policy, not kept: a notification's ID is read by its provider.)
    ///
    /// Every string is the token's own, never one shared with the configuration: a shared string
    /// would cost each token a reference-count round trip on memory all threads contend for.
    package static func read<Object: JSONObjectReading>(_ payload: Object) -> Result<
        RegisteredClaims, VerificationError
    > {
        var claims = RegisteredClaims()
        if let error = read(payload, into: &claims) { return .failure(error) }
        return .success(claims)
    }

    /// ``read(_:)`` into `claims` (which should start empty), for a caller that keeps them in
    /// place; returns the type error, if any (`claims` then holds what was read before it).
    static func read<Object: JSONObjectReading>(
        _ payload: Object, into claims: inout RegisteredClaims, requiresExpiration: Bool = true
    ) -> VerificationError? {
        // Straight-line reads with early returns: no closure or `Result` per claim.
        if let error = readString(payload, "iss", into: &claims.issuer) { return error }
        if let error = readString(payload, "sub", into: &claims.subject) { return error }
        if let error = readString(payload, "nonce", into: &claims.nonce) { return error }
        // A look-up, no copy: a number, object, array, boolean or null `jti` is refused.
        if let jti = payload.member("jti"), jti.kind != .string {
            return VerificationError(.claimType, detail: "jti is not a string")
        }
        if let aud = payload.member("aud") {
            if let bytes = aud.stringBytes {
                claims.audience = [String(decoding: bytes, as: UTF8.self)]
            } else if aud.kind == .array {
                var list: [String] = []
                list.reserveCapacity(aud.count)
                for index in 0..<aud.count {
                    guard let member = aud[index]?.string else {
                        return VerificationError(.claimType, detail: "aud array has a non-string member")
                    }
                    list.append(member)
                }
                claims.audience = list
                claims.audienceIsArray = true
            } else {
                return VerificationError(.claimType, detail: "aud is neither a string nor an array of strings")
            }
        }
        if let error = readDate(payload, "exp", into: &claims.expiresAt) { return error }
        if let error = readDate(payload, "nbf", into: &claims.notBefore) { return error }
        if let error = readDate(payload, "iat", into: &claims.issuedAt) { return error }
        guard claims.expiresAt != nil || !requiresExpiration else {
            return VerificationError(.claimType, detail: "exp is missing")
        }
        return nil
    }

    /// Reads the string member `name` into `value` (left `nil` when absent); the type error when
    /// it is not a string.
    @inline(__always)
    private static func readString<Object: JSONObjectReading>(
        _ payload: Object, _ name: StaticString, into value: inout String?
    ) -> VerificationError? {
        guard let node = payload.member(name) else { return nil }
        guard let string = node.string else {
            return VerificationError(.claimType, detail: "\(name) is not a string")
        }
        value = string
        return nil
    }

    /// Reads the NumericDate member `name` into `value` (left `nil` when absent); the type error
    /// when it is not a number within 0 … 2^53 − 1.
    @inline(__always)
    private static func readDate<Object: JSONObjectReading>(
        _ payload: Object, _ name: StaticString, into value: inout Double?
    ) -> VerificationError? {
        guard let node = payload.member(name) else { return nil }
        guard let number = node.number, number >= 0, number <= maximumNumericDate else {
            return VerificationError(.claimType, detail: "\(name) is not a NumericDate in 0…2^53-1")
        }
        value = number
        return nil
    }
}

extension RegisteredClaims {
    /// The registered claims of an object that may be anything (a rejected token): each member is
    /// taken only when it has the expected type; nothing fails.
    package static func readLeniently<Object: JSONObjectReading>(_ payload: Object) -> RegisteredClaims {
        var claims = RegisteredClaims()
        claims.issuer = payload.member("iss")?.string
        claims.subject = payload.member("sub")?.string
        claims.nonce = payload.member("nonce")?.string
        if let aud = payload.member("aud") {
            if let single = aud.string {
                claims.audience = [single]
            } else if aud.kind == .array {
                let members = (0..<aud.count).compactMap { aud[$0]?.string }
                if members.count == aud.count {
                    claims.audience = members
                    claims.audienceIsArray = true
                }
            }
        }
        claims.expiresAt = payload.member("exp")?.number
        claims.notBefore = payload.member("nbf")?.number
        claims.issuedAt = payload.member("iat")?.number
        return claims
    }
}

/// Claim reading as a ``JSONObjectConsumer``.
package struct RegisteredClaimsReading: JSONObjectConsumer {
    package init() {}
    package func consume<Object: JSONObjectReading>(_ object: Object) -> Result<RegisteredClaims, VerificationError> {
        RegisteredClaims.read(object)
    }
}
