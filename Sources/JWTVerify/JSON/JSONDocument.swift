internal import CJansson

/// One parsed JSON document, owned: jansson's root value is released exactly once, in `deinit`.
///
/// Parsing is strict (RFC 8259 plus I-JSON): invalid UTF-8, unpaired surrogate escapes, trailing
/// data, numbers that overflow a double, and duplicate member names at any depth are all errors;
/// escaped NUL is allowed. Nesting deeper than ``maximumDepth`` is an error too.
///
/// An integer beyond 64 bits is valid JSON, and real payloads carry them (numeric IDs): such a
/// document is read again with every number as a double (``widensIntegers``), and an integral
/// value within 64 bits still reads as an integer, so claims keep their types.
package final class JSONDocument {
    /// Deepest nesting accepted; the outermost object or array is depth 1.
    static let maximumDepth = 64

    private let root: UnsafeMutablePointer<json_t>
    /// Whether the document holds an integer beyond 64 bits, so that every number was read as a double.
    let widensIntegers: Bool

    /// Why a document was refused.
    package struct ParseFailure: Error, CustomStringConvertible {
        /// jansson's message, or the depth/shape rule that failed.
        package let description: String
    }

    private init(root: UnsafeMutablePointer<json_t>, widensIntegers: Bool) {
        self.root = root
        self.widensIntegers = widensIntegers
    }
    deinit { cjansson_decref(root) }

    /// Parses `bytes` as one JSON object or array.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<JSONDocument, ParseFailure> {
        var error = json_error_t()
        var widens = false
        var loaded = json_loadb(bytes.baseAddress, bytes.count, cjansson_strict_flags(), &error)
        if loaded == nil, cjansson_failed_on_overflow(&error) == 1 {
            widens = true
            loaded = json_loadb(bytes.baseAddress, bytes.count, cjansson_wide_number_flags(), &error)
        }
        guard let root = loaded else {
            let text = withUnsafeBytes(of: error.text) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            return .failure(ParseFailure(description: "\(text) at offset \(error.position)"))
        }
        let document = JSONDocument(root: root, widensIntegers: widens)
        guard JSONNode(root, widened: widens).fitsDepth(Self.maximumDepth) else {
            return .failure(ParseFailure(description: "nesting deeper than \(Self.maximumDepth) levels"))
        }
        return .success(document)
    }

    /// Parses `bytes` (any contiguous byte collection).
    package static func parse(_ bytes: [UInt8]) -> Result<JSONDocument, ParseFailure> {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Runs `body` with the root value. The node (and every node and byte buffer reached from it)
    /// is valid only inside `body`: copy out what must outlive it.
    package func withRoot<R, E: Error>(_ body: (JSONNode) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(self) { () throws(E) -> R in try body(JSONNode(root, widened: widensIntegers)) }
    }
}

/// A borrowed view of one value inside a ``JSONDocument``; valid only while the document is.
package struct JSONNode: JSONValueReading, JSONObjectReading {
    private let raw: UnsafeMutablePointer<json_t>
    /// Whether the document's numbers were all read as doubles (``JSONDocument/widensIntegers``).
    private let widened: Bool

    fileprivate init(_ raw: UnsafeMutablePointer<json_t>, widened: Bool) {
        self.raw = raw
        self.widened = widened
    }

    /// The largest magnitude a double read from an integer keeps as an integer (2^63).
    private static let integerLimit = 9_223_372_036_854_775_808.0

    /// This value's type. In a widened document, an integral number within 64 bits is an integer.
    package var kind: JSONKind {
        switch cjansson_typeof(raw) {
        case JSON_OBJECT: .object
        case JSON_ARRAY: .array
        case JSON_STRING: .string
        case JSON_INTEGER: .integer
        case JSON_REAL:
            if widened, case let value = json_real_value(raw), value == value.rounded(), abs(value) < Self.integerLimit
            {
                .integer
            } else {
                .real
            }
        case JSON_TRUE: .true
        case JSON_FALSE: .false
        default: .null
        }
    }

    /// jansson copies strings: never a range of the input.
    package var stringRange: Range<Int>? { nil }

    /// Runs `body` with this object (jansson finds each member in its own table); `nil` for other
    /// kinds.
    package func withObject<R>(_ body: (JSONNode) -> R) -> R? { kind == .object ? body(self) : nil }

    /// The member named `name` of an object (`nil` if absent or not an object).
    package func member(_ name: StaticString) -> JSONNode? {
        name.withUTF8Buffer { key in
            json_object_getn(raw, UnsafeRawPointer(key.baseAddress)?.assumingMemoryBound(to: CChar.self), key.count)
        }.map { JSONNode($0, widened: widened) }
    }

    /// The member whose name is the UTF-8 `name` (`nil` if absent or not an object).
    package func member(named name: UnsafeRawBufferPointer) -> JSONNode? {
        json_object_getn(raw, name.baseAddress?.assumingMemoryBound(to: CChar.self), name.count).map {
            JSONNode($0, widened: widened)
        }
    }

    /// The member named `name` of an object (`nil` if absent or not an object).
    package func member(_ name: String) -> JSONNode? {
        var name = name
        return name.withUTF8 { key in
            json_object_getn(raw, UnsafeRawPointer(key.baseAddress)?.assumingMemoryBound(to: CChar.self), key.count)
        }.map { JSONNode($0, widened: widened) }
    }

    /// The UTF-8 bytes of a string value (which may contain NUL), or `nil` for other types.
    package var stringBytes: UnsafeRawBufferPointer? {
        guard kind == .string, let value = json_string_value(raw) else { return nil }
        return UnsafeRawBufferPointer(start: value, count: json_string_length(raw))
    }

    /// Whether this is a string equal to `bytes`.
    func stringEquals(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let own = stringBytes, own.count == bytes.count else { return false }
        return own.elementsEqual(bytes)
    }

    /// The value of an integer or real, as a double (`nil` for other types).
    package var number: Double? {
        switch cjansson_typeof(raw) {
        case JSON_INTEGER: Double(json_integer_value(raw))
        case JSON_REAL: json_real_value(raw)
        default: nil
        }
    }

    /// The value of an integer (`nil` for other types).
    package var integer: Int64? {
        guard kind == .integer else { return nil }
        return cjansson_typeof(raw) == JSON_REAL ? Int64(json_real_value(raw)) : Int64(json_integer_value(raw))
    }

    /// The number of elements of an array (0 for other types).
    package var count: Int { kind == .array ? json_array_size(raw) : 0 }

    /// The number of members of an object (0 for other types).
    package var memberCount: Int { kind == .object ? json_object_size(raw) : 0 }

    /// The element at `index` of an array.
    package subscript(index: Int) -> JSONNode? { json_array_get(raw, index).map { JSONNode($0, widened: widened) } }

    /// Calls `body` with each member of an object, in jansson's order.
    package func forEachMember(_ body: (_ name: UnsafeRawBufferPointer, _ value: JSONNode) -> Void) {
        var iterator = json_object_iter(raw)
        while let current = iterator {
            if let key = json_object_iter_key(current), let value = json_object_iter_value(current) {
                body(
                    UnsafeRawBufferPointer(start: key, count: json_object_iter_key_len(current)),
                    JSONNode(value, widened: widened))
            }
            iterator = json_object_iter_next(raw, current)
        }
    }

    /// Whether this value nests at most `limit` levels of objects and arrays.
    func fitsDepth(_ limit: Int) -> Bool {
        switch kind {
        case .object:
            guard limit > 0 else { return false }
            var fits = true
            forEachMember { _, value in if fits { fits = value.fitsDepth(limit - 1) } }
            return fits
        case .array:
            guard limit > 0 else { return false }
            for index in 0..<count where !(self[index]?.fitsDepth(limit - 1) ?? true) { return false }
            return true
        default:
            return true
        }
    }

    /// A copy of this value (and everything inside it) as a ``JSONValue``.
    package var value: JSONValue {
        switch kind {
        case .object:
            var members: [String: JSONValue] = [:]
            forEachMember { name, value in members[String(decoding: name, as: UTF8.self)] = value.value }
            return .object(members)
        case .array:
            return .array((0..<count).compactMap { self[$0]?.value })
        case .string: return .string(string ?? "")
        case .integer: return .integer(integer ?? 0)
        case .real: return .number(number ?? 0)
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    /// This value serialised as compact JSON (for echoing a caller's value back unchanged).
    package var compactJSON: String {
        guard let text = json_dumps(raw, cjansson_dump_flags()) else { return "null" }
        defer { cjansson_free(text) }
        return String(cString: text)
    }
}
