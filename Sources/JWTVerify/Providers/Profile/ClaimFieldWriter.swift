/// Writes each field of a claims table present straight into a record, with the added members in
/// name order among them: what ``ClaimFieldLister`` lists, without a `JSONValue` or a closure per
/// member.
struct ClaimFieldWriter: ClaimFieldVisitor {
    /// The record being written, lent for the walk.
    let out: UnsafeMutablePointer<OutputText>
    /// The record's own members, still to be placed.
    var added: AddedClaimMembers

    mutating func text(_ name: StaticString, _ value: inout String?) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.string(value)
    }

    mutating func flag(_ name: StaticString, _ value: inout Bool?) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.bool(value)
    }

    mutating func number(_ name: StaticString, _ value: inout Double?) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.number(value)
    }

    mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.number(Double(value))
    }

    mutating func requiredNumber(_ name: StaticString, _ value: inout Double) {
        added.key(name, to: out)
        out.pointee.number(value)
    }

    mutating func text(_ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout String?) {
        guard let value else { return }
        added.key(listed, to: out)
        out.pointee.string(value)
    }

    mutating func object(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout JSONValue?
    ) {
        guard let value else { return }
        added.key(listed, to: out)
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
