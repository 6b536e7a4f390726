/// An authorization rule on one claim: the claim at ``path`` must be the string ``value``, or an
/// array with that string among its elements (`--require-claim PATH=VALUE`).
///
/// A policy's rules (``VerificationPolicy/claimRules``) must all hold, else the token is refused
/// as `claim_mismatch`. They are checked after every other check of the token, the provider's
/// rules included, and compare exact UTF-8 bytes. The literals `true` and `false` also match a
/// JSON boolean of that value (`email_verified=true`); a number, `null` or an object never
/// matches.
public struct ClaimRule: Sendable, Hashable, CustomStringConvertible {
    /// Where the claim sits in the payload.
    public let path: ClaimPath
    /// The string the claim must be, or contain.
    public let value: String
    /// ``value``'s UTF-8 bytes, made once.
    let valueBytes: [UInt8]

    /// A rule from its parts.
    public init(path: ClaimPath, value: String) {
        self.path = path
        self.value = value
        self.valueBytes = Array(value.utf8)
    }

    /// Parses `PATH=VALUE` (the first `=` ends the path; the value may be empty or hold `=`);
    /// `nil` without an `=` or with a path ``ClaimPath/init(parsing:)`` refuses.
    public init?(parsing text: String) {
        guard let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")),
            let path = ClaimPath(parsing: String(text[..<equals]))
        else { return nil }
        self.init(path: path, value: String(text[text.index(after: equals)...]))
    }

    /// `PATH=VALUE`.
    public var description: String { "\(path)=\(value)" }

    /// Why `object` breaks this rule, or `nil` when it holds.
    func failure<Object: JSONObjectReading>(in object: Object) -> VerificationError? {
        guard let claim = path.value(in: object) else {
            return VerificationError(.claimMismatch, detail: "claim \(Verifier.quoted(path.description)) is absent")
        }
        let wanted = Verifier.quoted(value)
        switch claim.kind {
        case .string:
            if equalsValue(claim) { return nil }
            return VerificationError(
                .claimMismatch, detail: "claim \(Verifier.quoted(path.description)) is not \(wanted)")
        case .array:
            for index in 0..<claim.count where claim[index].map(equalsValue) == true { return nil }
            return VerificationError(
                .claimMismatch, detail: "claim \(Verifier.quoted(path.description)) does not contain \(wanted)")
        case .true, .false:
            let literal = claim.kind == .true ? "true" : "false"
            if exactlyEquals(literal, valueBytes) { return nil }
            return VerificationError(
                .claimMismatch, detail: "claim \(Verifier.quoted(path.description)) is \(literal), not \(wanted)")
        default:
            return VerificationError(
                .claimMismatch,
                detail: "claim \(Verifier.quoted(path.description)) is not a string, an array or a boolean")
        }
    }

    /// Whether `element` is a string of exactly ``value``'s bytes.
    private func equalsValue<Value: JSONValueReading>(_ element: Value) -> Bool {
        guard let bytes = element.stringBytes, bytes.count == valueBytes.count else { return false }
        return valueBytes.withUnsafeBytes { $0.elementsEqual(bytes) }
    }

    /// Two rules are the same when their paths and values are the same bytes.
    public static func == (lhs: ClaimRule, rhs: ClaimRule) -> Bool {
        lhs.path == rhs.path && lhs.valueBytes == rhs.valueBytes
    }

    /// Hashes the path and the value's bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(valueBytes)
    }
}

extension VerificationError.Reason {
    /// A claim rule of the policy (``VerificationPolicy/claimRules``) does not hold.
    public static let claimMismatch = VerificationError.Reason(rawValue: "claim_mismatch")
}
