/// A claims type's field table: each claim stated once, as one line of ``fields(_:_:)``, which
/// both reads the claims from a payload (``ClaimFieldReader``) and lists them for records
/// (``ProviderClaimMembers/forEachMember(_:)``). The table is a generic function, not data: each
/// walk is compiled for its visitor, so reading costs what the hand-written lines did.
package protocol ClaimFieldTable {
    /// Visits each claim once, in name order, with its JWT name and its stored property.
    static func fields<Visitor: ClaimFieldVisitor>(_ claims: inout Self, _ visitor: inout Visitor)
        throws(VerificationError)
}

/// What a field table is walked with.
package protocol ClaimFieldVisitor {
    /// A string claim.
    mutating func text(_ name: StaticString, _ value: inout String?) throws(VerificationError)
    /// A boolean claim, sent as `true`/`false` or `"true"`/`"false"`.
    mutating func flag(_ name: StaticString, _ value: inout Bool?) throws(VerificationError)
    /// A number claim.
    mutating func number(_ name: StaticString, _ value: inout Double?) throws(VerificationError)
    /// A whole-number claim within `range`.
    mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>)
        throws(VerificationError)
    /// A number claim the provider always sends.
    mutating func requiredNumber(_ name: StaticString, _ value: inout Double) throws(VerificationError)
    /// A string member `member` of the object claim `object`, listed as `listed` (`firebase.sign_in_provider`).
    mutating func text(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout String?
    ) throws(VerificationError)
    /// An object member `member` of the object claim `object`, kept as JSON, listed as `listed`.
    mutating func object(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout JSONValue?
    ) throws(VerificationError)
}

/// Reads each field of a table from a payload: a member present with the wrong type is the
/// `claim_type` rule it breaks.
package struct ClaimFieldReader<Object: JSONObjectReading>: ClaimFieldVisitor {
    /// The payload's reader.
    let reader: ProviderClaimReader<Object>

    package mutating func text(_ name: StaticString, _ value: inout String?) throws(VerificationError) {
        value = try reader.string(name)
    }

    package mutating func flag(_ name: StaticString, _ value: inout Bool?) throws(VerificationError) {
        value = try reader.flag(name)
    }

    package mutating func number(_ name: StaticString, _ value: inout Double?) throws(VerificationError) {
        value = try reader.number(name)
    }

    package mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>)
        throws(VerificationError)
    {
        guard let node = reader.payload.member(name) else { return }
        guard node.kind == .integer, let number = node.number, number >= Double(range.lowerBound),
            number <= Double(range.upperBound)
        else {
            throw VerificationError(
                .claimType, detail: "\(name) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        value = Int(number)
    }

    package mutating func requiredNumber(_ name: StaticString, _ value: inout Double) throws(VerificationError) {
        guard let number = reader.payload.member(name)?.number else {
            throw VerificationError(.claimType, detail: "\(name) is missing or not a number")
        }
        value = number
    }

    package mutating func text(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout String?
    ) throws(VerificationError) {
        guard let node = try nested(object, member) else { return }
        guard let text = node.string else { throw VerificationError(.claimType, detail: "\(listed) is not a string") }
        value = text
    }

    package mutating func object(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout JSONValue?
    ) throws(VerificationError) {
        guard let node = try nested(object, member) else { return }
        guard node.kind == .object else { throw VerificationError(.claimType, detail: "\(listed) is not an object") }
        value = node.value
    }

    /// The member `member` of the object claim `object`, when both are present; an `object` that
    /// is not an object breaks the type rule.
    private func nested(_ object: StaticString, _ member: StaticString) throws(VerificationError) -> Object.Value? {
        guard let container = reader.payload.member(object) else { return nil }
        guard container.kind == .object else {
            throw VerificationError(.claimType, detail: "\(object) is not an object")
        }
        return container.member(member)
    }
}

/// Lists each field present, under its JWT name, as a JSON value.
package struct ClaimFieldLister: ClaimFieldVisitor {
    /// Called with each member present.
    let body: (StaticString, JSONValue) -> Void

    package mutating func text(_ name: StaticString, _ value: inout String?) {
        if let value { body(name, .string(value)) }
    }

    package mutating func flag(_ name: StaticString, _ value: inout Bool?) {
        if let value { body(name, .bool(value)) }
    }

    package mutating func number(_ name: StaticString, _ value: inout Double?) {
        if let value { body(name, .number(value)) }
    }

    package mutating func integer(_ name: StaticString, _ value: inout Int?, in range: ClosedRange<Int>) {
        if let value { body(name, .number(Double(value))) }
    }

    package mutating func requiredNumber(_ name: StaticString, _ value: inout Double) { body(name, .number(value)) }

    package mutating func text(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout String?
    ) {
        if let value { body(listed, .string(value)) }
    }

    package mutating func object(
        _ object: StaticString, _ member: StaticString, listed: StaticString, _ value: inout JSONValue?
    ) {
        if let value { body(listed, value) }
    }
}

extension ClaimFieldTable {
    /// The fields of the table read from `reader`'s payload into `claims`.
    static func readFields<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout Self)
        throws(VerificationError)
    {
        var visitor = ClaimFieldReader(reader: reader)
        try fields(&claims, &visitor)
    }

    /// Calls `body` with each field present, in the table's (name) order.
    func forEachField(_ body: (StaticString, JSONValue) -> Void) {
        var copy = self
        withoutActuallyEscaping(body) { body in
            var lister = ClaimFieldLister(body: body)
            try? Self.fields(&copy, &lister)
        }
    }
}
