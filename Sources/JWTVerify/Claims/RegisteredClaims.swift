/// The registered claims (RFC 7519 §4.1) the verifier checks, typed.
///
/// NumericDates keep their exact value (fractions included) as seconds since the epoch.
///
/// Claims the verifier read keep their strings as places in the token's payload, which the
/// verified token holds anyway (see ``ClaimText``): reading `issuer`, `subject`, `nonce` or
/// `audience` makes the `String` then, and a token nobody asks costs no allocation per claim.
/// Equality compares the claims' values (strings by their UTF-8 bytes), wherever they are kept.
public struct RegisteredClaims: Sendable, Hashable {
    /// `iss`.
    public var issuer: String? {
        get { issuerText.map(string) }
        set { issuerText = newValue.map(ClaimText.string) }
    }
    /// `sub`.
    public var subject: String? {
        get { subjectText.map(string) }
        set { subjectText = newValue.map(ClaimText.string) }
    }
    /// `aud` as a list (a single string becomes one element); `nil` when absent.
    public var audience: [String]? {
        get { audienceList ?? audienceText.map { [string($0)] } }
        set {
            audienceList = newValue
            audienceText = nil
        }
    }
    /// `exp`.
    public var expiresAt: Double?
    /// `nbf`.
    public var notBefore: Double?
    /// `iat`.
    public var issuedAt: Double?
    /// `nonce` (the hash the provider copied from the sign-in request).
    public var nonce: String? {
        get { nonceText.map(string) }
        set { nonceText = newValue.map(ClaimText.string) }
    }
    /// Whether `aud` was written as an array (even of one member).
    public var audienceIsArray = false

    /// The payload the ``ClaimText/bytes(start:count:)`` claims lie in (empty when none do).
    private var source: [UInt8] = []
    private var issuerText: ClaimText?
    private var subjectText: ClaimText?
    private var nonceText: ClaimText?
    /// A single-string `aud` (``audienceList`` is `nil` then).
    private var audienceText: ClaimText?
    /// An array `aud`, or one set through ``audience``.
    private var audienceList: [String]?

    /// The string claims kept as text (``withBytes(of:_:)``).
    package enum TextClaim {
        /// `iss`.
        case issuer
        /// `sub`.
        case subject
        /// `nonce`.
        case nonce
        /// `aud` when it is a single string (not an array).
        case singleAudience
    }

    private func text(_ claim: TextClaim) -> ClaimText? {
        switch claim {
        case .issuer: issuerText
        case .subject: subjectText
        case .nonce: nonceText
        case .singleAudience: audienceText
        }
    }

    /// Whether the claim is present (``TextClaim/singleAudience``: `aud` is one string).
    package func has(_ claim: TextClaim) -> Bool { text(claim) != nil }

    /// Whether the claim is kept as a place in the payload rather than a `String` of its own.
    package func isInPlace(_ claim: TextClaim) -> Bool {
        if case .bytes? = text(claim) { return true }
        return false
    }

    /// Runs `body` with the UTF-8 bytes of `claim` (`nil` when absent), read in place: no `String`
    /// is made for claims the verifier read.
    @inline(__always)
    package func withBytes<R>(of claim: TextClaim, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        switch text(claim) {
        case nil: return body(nil)
        case .bytes(let start, let count)?:
            return source.withUnsafeBytes { all in
                body(UnsafeRawBufferPointer(rebasing: all[Int(start)..<Int(start) + Int(count)]))
            }
        case .string(var string)?:
            return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    private func string(_ text: ClaimText) -> String {
        switch text {
        case .bytes(let start, let count):
            source.withUnsafeBytes { all in
                String(decoding: all[Int(start)..<Int(start) + Int(count)], as: UTF8.self)
            }
        case .string(let string): string
        }
    }

    /// Equal claims hold the same values (strings compared by their UTF-8 bytes), wherever they
    /// keep them.
    public static func == (lhs: RegisteredClaims, rhs: RegisteredClaims) -> Bool {
        for claim in [TextClaim.issuer, .subject, .nonce] {
            let same = lhs.withBytes(of: claim) { a in rhs.withBytes(of: claim) { b in Self.sameBytes(a, b) } }
            guard same else { return false }
        }
        guard lhs.expiresAt == rhs.expiresAt, lhs.notBefore == rhs.notBefore, lhs.issuedAt == rhs.issuedAt,
            lhs.audienceIsArray == rhs.audienceIsArray
        else { return false }
        switch (lhs.audience, rhs.audience) {
        case (nil, nil): return true
        case (let a?, let b?):
            return a.count == b.count && zip(a, b).allSatisfy { exactlyEquals($0, $1) }
        default: return false
        }
    }

    /// Hashes the values ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        for claim in [TextClaim.issuer, .subject, .nonce] {
            withBytes(of: claim) { bytes in
                hasher.combine(bytes != nil)
                if let bytes { hasher.combine(bytes: bytes) }
            }
        }
        hasher.combine(expiresAt)
        hasher.combine(notBefore)
        hasher.combine(issuedAt)
        hasher.combine(audienceIsArray)
        if let audience {
            hasher.combine(audience.count)
            for member in audience {
                var member = member
                member.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            }
        } else {
            hasher.combine(-1)
        }
    }

    private static func sameBytes(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.count == b.count && a.elementsEqual(b)
        default: false
        }
    }

    /// Whether records write `aud` as an array: it was one, or it does not hold exactly one
    /// audience.
    package var audienceIsList: Bool {
        if audienceText != nil { return audienceIsArray }
        return audienceList.map { audienceIsArray || $0.count != 1 } ?? false
    }

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
    ///
    /// With `source`, the bytes `payload` was parsed from, strings the parser read in place are
    /// kept as places in them (``ClaimText``) rather than copied.
    static func read<Object: JSONObjectReading>(
        _ payload: Object, into claims: inout RegisteredClaims, requiresExpiration: Bool = true,
        source: [UInt8]? = nil
    ) -> VerificationError? {
        let keepsPlaces = source != nil
        if let source { claims.source = source }
        // Straight-line reads with early returns: no closure or `Result` per claim.
        if let error = readString(payload, "iss", into: &claims.issuerText, keepsPlaces) { return error }
        if let error = readString(payload, "sub", into: &claims.subjectText, keepsPlaces) { return error }
        if let error = readString(payload, "nonce", into: &claims.nonceText, keepsPlaces) { return error }
        // A look-up, no copy: a number, object, array, boolean or null `jti` is refused.
        if let jti = payload.member("jti"), jti.kind != .string {
            return VerificationError(.claimType, detail: "jti is not a string")
        }
        if let aud = payload.member("aud") {
            if let text = ClaimText.of(aud, keepsPlaces: keepsPlaces) {
                claims.audienceText = text
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
        _ payload: Object, _ name: StaticString, into value: inout ClaimText?, _ keepsPlaces: Bool
    ) -> VerificationError? {
        guard let node = payload.member(name) else { return nil }
        guard let text = ClaimText.of(node, keepsPlaces: keepsPlaces) else {
            return VerificationError(.claimType, detail: "\(name) is not a string")
        }
        value = text
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
