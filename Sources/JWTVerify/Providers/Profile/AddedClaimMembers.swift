#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The members a record adds to a provider's typed claims (`sub`, its alias such as `uid`, and
/// `nonce`), written among them in name order by ``ProviderClaims/writeMembers(to:adding:)``.
package struct AddedClaimMembers {
    /// The members whose values are there, sorted by name; those from `next` on are not written yet.
    private var names: (StaticString, StaticString, StaticString) = ("", "", "")
    private var values: (Claim, Claim, Claim) = (.subject, .subject, .subject)
    private var count = 0
    private var next = 0
    /// The claims the values are read from, in place.
    private let claims: RegisteredClaims

    /// The registered claims a record may add.
    package typealias Claim = RegisteredClaims.TextClaim

    /// Up to three string claims of `claims`, each under its name and written only when present.
    package init(
        _ claims: RegisteredClaims, _ first: (StaticString, Claim), _ second: (StaticString, Claim)?,
        _ third: (StaticString, Claim)?
    ) {
        self.claims = claims
        if claims.has(first.1) { insert(first.0, first.1) }
        if let (name, value) = second, claims.has(value) { insert(name, value) }
        if let (name, value) = third, claims.has(value) { insert(name, value) }
    }

    /// Places one member by name among those already held (at most three: an insertion sort).
    private mutating func insert(_ name: StaticString, _ value: Claim) {
        var position = count
        while position > 0 && Self.precedes(name, self.name(at: position - 1)) {
            set(position, self.name(at: position - 1), self.value(at: position - 1))
            position -= 1
        }
        set(position, name, value)
        count += 1
    }

    private func name(at index: Int) -> StaticString {
        switch index {
        case 0: names.0
        case 1: names.1
        default: names.2
        }
    }

    private func value(at index: Int) -> Claim {
        switch index {
        case 0: values.0
        case 1: values.1
        default: values.2
        }
    }

    private mutating func set(_ index: Int, _ name: StaticString, _ value: Claim) {
        switch index {
        case 0: (names.0, values.0) = (name, value)
        case 1: (names.1, values.1) = (name, value)
        default: (names.2, values.2) = (name, value)
        }
    }

    /// Writes the added members whose names sort before `name`, then `name`'s key: where a
    /// provider's member named `name` goes in the record.
    mutating func key(_ name: StaticString, to out: UnsafeMutablePointer<OutputText>) {
        write(before: name, to: out)
        out.pointee.key(name)
    }

    /// Writes the added members whose names sort before `name` (all that are left for `nil`), in
    /// name order.
    package mutating func write(before name: StaticString?, to out: UnsafeMutablePointer<OutputText>) {
        while next < count {
            let candidate = self.name(at: next)
            if let name, !Self.precedes(candidate, name) { return }
            out.pointee.member(candidate, value(at: next), of: claims)
            next += 1
        }
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes (as names sort in records).
    private static func precedes(_ a: StaticString, _ b: StaticString) -> Bool {
        guard a.hasPointerRepresentation && b.hasPointerRepresentation else {
            return a.withUTF8Buffer { a in b.withUTF8Buffer { b in a.lexicographicallyPrecedes(b) } }
        }
        let common = Swift.min(a.utf8CodeUnitCount, b.utf8CodeUnitCount)
        let order = common == 0 ? 0 : memcmp(a.utf8Start, b.utf8Start, common)
        return order != 0 ? order < 0 : a.utf8CodeUnitCount < b.utf8CodeUnitCount
    }
}
