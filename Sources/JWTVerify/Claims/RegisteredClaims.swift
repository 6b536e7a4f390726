/// The registered claims (RFC 7519 §4.1) the verifier checks, typed.
///
/// NumericDates keep their exact value (fractions included) as seconds since the epoch.
///
/// Claims the verifier read keep their strings as places (eight bytes each) in the token's
/// payload, which the verified token holds anyway: reading `issuer`, `subject`, `nonce` or
/// `audience` makes the `String` then, and a token nobody asks costs no allocation per claim.
/// Equality compares the claims' values (strings by their UTF-8 bytes), wherever they are kept.
public struct RegisteredClaims: Sendable, Hashable {
    /// `iss`.
    public var issuer: String? {
        get { string(.issuer) }
        set { set(.issuer, newValue) }
    }
    /// `sub`.
    public var subject: String? {
        get { string(.subject) }
        set { set(.subject, newValue) }
    }
    /// `aud` as a list (a single string becomes one element); `nil` when absent.
    public var audience: [String]? {
        get { owned?.audienceList ?? string(.singleAudience).map { [$0] } }
        set {
            set(.singleAudience, nil)
            if newValue == nil && owned == nil { return }
            owned = OwnedTexts(owned, audienceList: .some(newValue))
        }
    }
    /// `nonce` (the hash the provider copied from the sign-in request).
    public var nonce: String? {
        get { string(.nonce) }
        set { set(.nonce, newValue) }
    }

    /// The payload the claims' places lie in (empty when none does).
    private var source: [UInt8] = []
    private var issuerPlace = ClaimPlace.absent
    private var subjectPlace = ClaimPlace.absent
    private var noncePlace = ClaimPlace.absent
    /// A single-string `aud` (an array one is in ``owned``).
    private var audiencePlace = ClaimPlace.absent
    /// The claims that are `String`s of their own, and an array `aud`; `nil` when there are none.
    private var owned: OwnedTexts?

    /// `exp`.
    public var expiresAt: Double?
    /// `nbf`.
    public var notBefore: Double?
    /// `iat`.
    public var issuedAt: Double?
    /// Whether `aud` was written as an array (even of one member).
    public var audienceIsArray = false

    /// The strings of ``RegisteredClaims`` that are not places in a payload: immutable, replaced
    /// whole when one changes (through the API, or jansson's reading; never on the fast path).
    private final class OwnedTexts: Sendable {
        /// By ``TextClaim`` raw value.
        let texts: [String?]
        /// An array `aud`, or one set through ``RegisteredClaims/audience``.
        let audienceList: [String]?

        init(texts: [String?], audienceList: [String]?) {
            self.texts = texts
            self.audienceList = audienceList
        }

        /// `base` with `claim` set to `text`, or with the list `audienceList` when that is given.
        convenience init(
            _ base: OwnedTexts?, claim: TextClaim? = nil, text: String? = nil, audienceList: [String]?? = nil
        ) {
            var texts = base?.texts ?? [nil, nil, nil, nil]
            if let claim { texts[claim.rawValue] = text }
            self.init(texts: texts, audienceList: audienceList ?? base?.audienceList)
        }
    }

    /// The string claims kept as text (``withBytes(of:_:)``).
    package enum TextClaim: Int {
        /// `iss`.
        case issuer
        /// `sub`.
        case subject
        /// `nonce`.
        case nonce
        /// `aud` when it is a single string (not an array).
        case singleAudience
    }

    private func place(_ claim: TextClaim) -> ClaimPlace {
        switch claim {
        case .issuer: issuerPlace
        case .subject: subjectPlace
        case .nonce: noncePlace
        case .singleAudience: audiencePlace
        }
    }

    private mutating func setPlace(_ claim: TextClaim, _ place: ClaimPlace) {
        switch claim {
        case .issuer: issuerPlace = place
        case .subject: subjectPlace = place
        case .nonce: noncePlace = place
        case .singleAudience: audiencePlace = place
        }
    }

    /// Sets `claim` to a `String` of its own (or absent).
    private mutating func set(_ claim: TextClaim, _ text: String?) {
        let wasOwned = place(claim) == .owned
        setPlace(claim, text == nil ? .absent : .owned)
        if text != nil || wasOwned { owned = OwnedTexts(owned, claim: claim, text: text) }
    }

    /// Keeps the string value `node` as `claim`: its place in ``source`` when `inPlace` and the
    /// parser read it there, else a copy. `false` when `node` is not a string.
    private mutating func keep<Value: JSONValueReading>(_ claim: TextClaim, _ node: Value, inPlace: Bool) -> Bool {
        if inPlace, let range = node.stringRange {
            setPlace(claim, ClaimPlace(range))
            return true
        }
        guard let text = node.string else { return false }
        set(claim, text)
        return true
    }

    /// Whether the claim is present (``TextClaim/singleAudience``: `aud` is one string).
    package func has(_ claim: TextClaim) -> Bool { place(claim) != .absent }

    /// Whether the claim is kept as a place in the payload rather than a `String` of its own.
    package func isInPlace(_ claim: TextClaim) -> Bool { place(claim).range != nil }

    /// Runs `body` with the UTF-8 bytes of `claim` (`nil` when absent), read in place: no `String`
    /// is made for claims the verifier read.
    @inline(__always)
    package func withBytes<R>(of claim: TextClaim, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        let place = place(claim)
        if let range = place.range {
            return source.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
        guard place == .owned, var text = owned?.texts[claim.rawValue] else { return body(nil) }
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    private func string(_ claim: TextClaim) -> String? {
        let place = place(claim)
        if let range = place.range { return source.withUnsafeBytes { String(decoding: $0[range], as: UTF8.self) } }
        return place == .owned ? owned?.texts[claim.rawValue] : nil
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
        case (let a?, let b?): return a.count == b.count && zip(a, b).allSatisfy { exactlyEquals($0, $1) }
        default: return false
        }
    }

    /// Hashes the values `==` compares.
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
                member.withUTF8 {
                    hasher.combine($0.count)
                    hasher.combine(bytes: UnsafeRawBufferPointer($0))
                }
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
        if has(.singleAudience) { return audienceIsArray }
        return owned?.audienceList.map { audienceIsArray || $0.count != 1 } ?? false
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
    /// kept as places in them (``ClaimPlace``) rather than copied.
    static func read<Object: JSONObjectReading>(
        _ payload: Object, into claims: inout RegisteredClaims, requiresExpiration: Bool = true,
        source: [UInt8]? = nil
    ) -> VerificationError? {
        let keepsPlaces = source != nil
        if let source { claims.source = source }
        // Straight-line reads with early returns: no closure or `Result` per claim.
        if let error = readString(payload, "iss", into: .issuer, of: &claims, keepsPlaces) { return error }
        if let error = readString(payload, "sub", into: .subject, of: &claims, keepsPlaces) { return error }
        if let error = readString(payload, "nonce", into: .nonce, of: &claims, keepsPlaces) { return error }
        // A look-up, no copy: a number, object, array, boolean or null `jti` is refused.
        if let jti = payload.member("jti"), jti.kind != .string {
            return VerificationError(.claimType, detail: "jti is not a string")
        }
        if let aud = payload.member("aud") {
            if claims.keep(.singleAudience, aud, inPlace: keepsPlaces) {
                // One string.
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

    /// Reads the string member `name` as `claim` of `claims` (left absent when the member is);
    /// the type error when it is not a string.
    @inline(__always)
    private static func readString<Object: JSONObjectReading>(
        _ payload: Object, _ name: StaticString, into claim: TextClaim, of claims: inout RegisteredClaims,
        _ keepsPlaces: Bool
    ) -> VerificationError? {
        guard let node = payload.member(name) else { return nil }
        guard claims.keep(claim, node, inPlace: keepsPlaces) else {
            return VerificationError(.claimType, detail: "\(name) is not a string")
        }
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
