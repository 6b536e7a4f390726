/// Builds JSON text into a byte buffer: the CLI's output lines and ``JSONValue/description``.
///
/// Strings are escaped per RFC 8259 (quote, backslash and control characters); everything else is
/// written as is, so valid UTF-8 in means valid JSON out.
package struct JSONText {
    /// The text written so far.
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// An empty buffer.
    package init() {}

    /// The text as a `String`.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Removes everything written, keeping the buffer's capacity.
    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// Appends raw bytes between documents (a line break); the next value starts a new document.
    package mutating func appendRaw(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
        needsComma = false
    }

    /// Appends `{`.
    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Appends `}`.
    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Appends `[`.
    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Appends `]`.
    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Appends a member name known at compile time (plain ASCII, nothing to escape) and its colon.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// Appends a member name and its colon.
    @_disfavoredOverload
    package mutating func key(_ name: String) {
        separate()
        var name = name
        name.withUTF8 { quoted(UnsafeRawBufferPointer($0)) }
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Appends a string value.
    package mutating func string(_ value: some Collection<UInt8>) {
        separate()
        quoted(value)
        needsComma = true
    }

    /// Appends a string value.
    package mutating func string(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { quoted(UnsafeRawBufferPointer($0)) }
        needsComma = true
    }

    /// Appends a number: integral values within ±2^53 without a fraction, others in Swift's
    /// shortest round-trip form.
    package mutating func number(_ value: Double) {
        separate()
        if value.isFinite, value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            appendDigits(Int64(value))
        } else if value.isFinite {
            bytes.append(contentsOf: "\(value)".utf8)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        needsComma = true
    }

    /// Appends an integer.
    package mutating func integer(_ value: Int) {
        separate()
        appendDigits(Int64(value))
        needsComma = true
    }

    /// Writes the decimal digits of `value` (no `String` in between).
    private mutating func appendDigits(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
        }
    }

    /// Appends `true` or `false`.
    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// Appends `null`.
    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Appends already-serialised JSON as one value.
    package mutating func rawValue(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// Appends `"name": value`, or `"name": null` when `value` is `nil`.
    package mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    /// Appends `"name": value`, or `"name": null` when `value` is `nil`.
    package mutating func member(_ name: StaticString, _ value: Double?) {
        key(name)
        if let value { number(value) } else { null() }
    }

    /// Appends `"name": value` when `value` is there; nothing otherwise.
    package mutating func optionalMember(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// Appends `"name": value` when `value` is there; nothing otherwise.
    package mutating func optionalMember(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// Appends `"name": value` when `value` is there; nothing otherwise.
    package mutating func optionalMember(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        number(value)
    }

    /// Appends `"aud": …` as the token had it: a string, an array (also of one), or `null`.
    package mutating func audience(_ claims: RegisteredClaims) {
        key("aud")
        guard let audience = claims.audience else { return null() }
        if claims.audienceIsArray || audience.count != 1 {
            beginArray()
            for member in audience { string(member) }
            endArray()
        } else {
            string(audience[0])
        }
    }

    /// Appends any ``JSONValue`` (object members sorted by name, for stable output).
    package mutating func append(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let b): bool(b)
        case .integer(let i):
            separate()
            appendDigits(i)
            needsComma = true
        case .number(let d): number(d)
        case .string(let s): string(s)
        case .array(let elements):
            beginArray()
            for element in elements { append(element) }
            endArray()
        case .object(let members):
            beginObject()
            for name in members.keys.sorted() {
                key(name)
                append(members[name]!)
            }
            endObject()
        }
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// 1 for bytes that must be escaped inside a JSON string (quote, backslash, controls, DEL).
    private static let needsEscape: [UInt8] = (0..<256).map { byte in
        byte < 0x20 || byte == 0x7F || byte == Int(UInt8(ascii: "\"")) || byte == Int(UInt8(ascii: "\\")) ? 1 : 0
    }

    private mutating func quoted(_ value: some Collection<UInt8>) {
        if let done = value.withContiguousStorageIfAvailable({ quoted(UnsafeRawBufferPointer($0)) }) { return done }
        let copy = Array(value)
        copy.withUnsafeBytes { quoted($0) }
    }

    /// Appends `"value"`, copying runs of bytes that need no escape in bulk.
    private mutating func quoted(_ value: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        Self.needsEscape.withUnsafeBufferPointer { escape in
            var runStart = 0
            for i in 0..<value.count where escape[Int(value[i])] != 0 {
                if runStart < i { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[runStart..<i])) }
                appendEscaped(value[i])
                runStart = i + 1
            }
            if runStart < value.count { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0x0F)])
        }
    }
}
