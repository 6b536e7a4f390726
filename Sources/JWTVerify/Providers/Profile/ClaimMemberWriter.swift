/// The members a record adds to a provider's typed claims (`sub`, its alias such as `uid`, and
/// `nonce`), written among them in name order by ``ProviderClaims/writeMembers(to:adding:)``.
package struct AddedClaimMembers {
    /// The members whose values are there, sorted by name; those from `next` on are not written yet.
    private var names: (StaticString, StaticString, StaticString) = ("", "", "")
    private var values: (String, String, String) = ("", "", "")
    private var count = 0
    private var next = 0

    /// Up to three members, each written only when its value is there.
    package init(
        _ first: (StaticString, String?), _ second: (StaticString, String?)?, _ third: (StaticString, String?)?
    ) {
        if let value = first.1 { insert(first.0, value) }
        if let (name, value) = second, let value { insert(name, value) }
        if let (name, value) = third, let value { insert(name, value) }
    }

    /// Places one member by name among those already held (at most three: an insertion sort).
    private mutating func insert(_ name: StaticString, _ value: String) {
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

    private func value(at index: Int) -> String {
        switch index {
        case 0: values.0
        case 1: values.1
        default: values.2
        }
    }

    private mutating func set(_ index: Int, _ name: StaticString, _ value: String) {
        switch index {
        case 0: (names.0, values.0) = (name, value)
        case 1: (names.1, values.1) = (name, value)
        default: (names.2, values.2) = (name, value)
        }
    }

    /// Writes the added members whose names sort before `name` (all that are left for `nil`), in
    /// name order.
    package mutating func write(before name: StaticString?, to out: UnsafeMutablePointer<OutputText>) {
        while next < count {
            let candidate = self.name(at: next)
            if let name, !Self.precedes(candidate, name) { return }
            out.pointee.key(candidate)
            out.pointee.string(value(at: next))
            next += 1
        }
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes (as names sort in records).
    private static func precedes(_ a: StaticString, _ b: StaticString) -> Bool {
        a.withUTF8Buffer { a in
            b.withUTF8Buffer { b in
                let common = Swift.min(a.count, b.count)
                var i = 0
                while i < common {
                    if a[i] != b[i] { return a[i] < b[i] }
                    i += 1
                }
                return a.count < b.count
            }
        }
    }
}

/// Writes each field of a claims table present straight into a record, with the added members in
/// name order among them: what ``ClaimFieldLister`` lists, without a `JSONValue` or a closure per
/// member.
struct ClaimFieldWriter: ClaimFieldVisitor {
    /// The record being written, lent for the walk.
    let out: UnsafeMutablePointer<OutputText>
    /// The record's own members, still to be placed.
    var added: AddedClaimMembers

    private mutating func key(_ name: StaticString) {
        added.write(before: name, to: out)
        out.pointee.key(name)
    }

    mutating func text(_ name: StaticString, _ value: inout String?) {
        guard let value else { return }
        key(name)
        out.pointee.string(value)
    }

    mutating func flag(_ name: StaticString, _ value: inout Bool?) {
        guard let value else { return }
        key(name)
        out.pointee.bool(value)
    }

    mutating func number(_ name: StaticString, _ value: inout Double?) {
        guard let value else { return }
        key(name)
        out.pointee.number(value)
    }

    mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
        guard let value else { return }
        key(name)
        out.pointee.number(Double(value))
    }

    mutating func requiredNumber(_ name: StaticString, _ value: inout Double) {
        key(name)
        out.pointee.number(value)
    }

    mutating func text(_ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout String?) {
        guard let value else { return }
        key(listed)
        out.pointee.string(value)
    }

    mutating func object(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout JSONValue?
    ) {
        guard let value else { return }
        key(listed)
        out.pointee.append(value)
    }
}

extension ProviderClaimMembers {
    /// Writes the typed members and `added` into the open object `out`, in name order, through
    /// ``forEachMember(_:)``.
    package func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers) {
        forEachMember { name, value in
            added.write(before: name, to: out)
            out.pointee.key(name)
            out.pointee.append(value)
        }
        added.write(before: nil, to: out)
    }
}

extension ProviderClaimMembers where Self: ClaimFieldTable {
    /// Writes the fields present and `added` into the open object `out`, in name order, straight
    /// from the table.
    package func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers) {
        var copy = self
        var writer = ClaimFieldWriter(out: out, added: added)
        try? Self.fields(&copy, &writer)
        writer.added.write(before: nil, to: out)
        added = writer.added
    }
}
