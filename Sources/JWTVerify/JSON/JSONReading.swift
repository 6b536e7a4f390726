/// The JSON type of a value.
package enum JSONKind: Equatable { case object, array, string, integer, real, `true`, `false`, null }

/// Read access to one JSON value, whichever parser produced it (the fast scanner or jansson), so
/// header and claim checks are written once and specialised for each.
package protocol JSONValueReading {
    /// An object value's members, read through the object interface.
    associatedtype Members: JSONObjectReading where Members.Value == Self
    /// This value's type.
    var kind: JSONKind { get }
    /// The UTF-8 bytes of a string value (escapes undone), or `nil` for other types.
    var stringBytes: UnsafeRawBufferPointer? { get }
    /// Where a string value's bytes lie in the parsed input, when they are the string itself (no
    /// escapes to undo); `nil` for other types, and for a parser that copies strings (jansson).
    var stringRange: Range<Int>? { get }
    /// The value of an integer or real as a double, or `nil` for other types.
    var number: Double? { get }
    /// The number of elements of an array (0 for other types).
    var count: Int { get }
    /// The element at `index` of an array.
    subscript(index: Int) -> Self? { get }
    /// The member named `name` of an object (`nil` if absent or not an object).
    func member(_ name: StaticString) -> Self?
    /// The member of an object whose name is the UTF-8 `name` (`nil` if absent or not an object).
    func member(named name: UnsafeRawBufferPointer) -> Self?
    /// A copy of this value and everything inside it.
    var value: JSONValue { get }
    /// Runs `body` with the members of an object, found once for all the lookups `body` makes
    /// (``member(_:)`` finds them anew on every call); `nil` for other kinds.
    func withObject<R>(_ body: (Members) -> R) -> R?
}

extension JSONValueReading {
    /// A copy of a string value.
    package var string: String? { stringBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// The value of `true` or `false`.
    package var bool: Bool? { kind == .true ? true : kind == .false ? false : nil }
    /// A JSON boolean, or the strings "true"/"false" (Apple has sent both); `nil` otherwise.
    package var lenientBool: Bool? {
        if let bool { return bool }
        guard let bytes = stringBytes else { return nil }
        if bytes.count == 4 && bytes[0] == UInt8(ascii: "t") && bytes[1] == UInt8(ascii: "r")
            && bytes[2] == UInt8(ascii: "u")
            && bytes[3] == UInt8(ascii: "e")
        {
            return true
        }
        if bytes.count == 5 && bytes[0] == UInt8(ascii: "f") && bytes[1] == UInt8(ascii: "a")
            && bytes[2] == UInt8(ascii: "l")
            && bytes[3] == UInt8(ascii: "s") && bytes[4] == UInt8(ascii: "e")
        {
            return false
        }
        return nil
    }
}

/// Read access to a JSON object's members.
package protocol JSONObjectReading {
    associatedtype Value: JSONValueReading
    /// The member named `name`.
    func member(_ name: StaticString) -> Value?
    /// The member whose name is the UTF-8 `name` (a name known only at run time).
    func member(named name: UnsafeRawBufferPointer) -> Value?
}

/// Work done on a parsed JSON object, generic over the parser that produced it.
package protocol JSONObjectConsumer {
    associatedtype Output
    func consume<Object: JSONObjectReading>(_ object: Object) -> Output
}

/// Parses JSON objects for the per-token path: the strict ``FlatJSONScanner`` for the plain shape
/// real tokens have, jansson (``JSONDocument``) as the arbiter for everything else.
package enum JSONObjectParser {
    /// Why bytes were not a JSON object.
    package enum Problem: Error {
        /// Not valid JSON (jansson's message).
        case invalid(String)
        /// Valid JSON, but not an object.
        case notObject
    }

    /// Parses `bytes` and runs `consumer` on the object.
    package static func parse<Consumer: JSONObjectConsumer>(_ bytes: UnsafeRawBufferPointer, _ consumer: Consumer)
        -> Result<Consumer.Output, Problem>
    {
        // The scanner reports acceptance as a Bool, and the output lands in a fully initialised
        // variable (an Optional-wrapped generic Result confused memcheck's definedness tracking).
        var output: Result<Consumer.Output, Problem> = .failure(.notObject)
        if FlatJSONScanner.accepts(bytes, { output = .success(consumer.consume($0)) }) { return output }
        switch JSONDocument.parse(bytes) {
        case .failure(let failure): return .failure(.invalid(failure.description))
        case .success(let document):
            return document.withRoot { root in
                root.kind == .object ? .success(consumer.consume(root)) : .failure(.notObject)
            }
        }
    }
}
