/// A JSON value copied out of a token: how claims that JWTVerify does not interpret are handed back.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string (escapes undone; may contain NUL).
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member names are unique (duplicates are rejected when parsing).
    case object([String: JSONValue])

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }

    /// The number, if this is an integer or a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }

    /// Compact JSON text for this value (object members sorted by name).
    public var description: String {
        var out = OutputText()
        out.append(self)
        return out.string
    }
}
