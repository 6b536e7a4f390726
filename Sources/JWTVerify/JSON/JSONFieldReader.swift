/// Reads a few named members of a JSON object in one concrete (non-generic) call, for callers
/// outside this module that must not pay for unspecialised generic parsing per line (the CLI's
/// request lines). The fast scanner reads ordinary objects, jansson the rest, as everywhere.
package enum JSONFieldReader {
    /// A string member's bytes: a span of the input (no escapes in it), or a copy (unescaped).
    package enum Bytes: Sendable {
        case span(Range<Int>)
        case copy([UInt8])

        /// Runs `body` with the bytes, resolving a span against `input`.
        package func withBytes<R>(in input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .span(let range): body(UnsafeRawBufferPointer(rebasing: input[range]))
            case .copy(let bytes): bytes.withUnsafeBytes(body)
            }
        }
    }

    /// One member as read: its kind, its bytes when it is a string, and when asked for, its
    /// value as compact JSON.
    package struct Field: Sendable {
        package var kind: JSONKind
        package var string: Bytes?
        package var json: String?
    }

    /// Reads `strings` (each a member whose string bytes are wanted) and `jsonValues` (members
    /// wanted as compact JSON) from the object `input`; absent members are `nil`.
    package static func read(
        _ input: UnsafeRawBufferPointer, strings: [StaticString], jsonValues: [StaticString]
    ) -> Result<(strings: [Field?], jsonValues: [Field?]), JSONObjectParser.Problem> {
        JSONObjectParser.parse(input, Reading(input: input, strings: strings, jsonValues: jsonValues))
    }

    private struct Reading: JSONObjectConsumer {
        let input: UnsafeRawBufferPointer
        let strings: [StaticString]
        let jsonValues: [StaticString]

        func consume<Object: JSONObjectReading>(_ object: Object) -> (strings: [Field?], jsonValues: [Field?]) {
            let base = input.baseAddress.map(UnsafeRawPointer.init)
            func bytes(_ value: Object.Value) -> Bytes? {
                guard let text = value.stringBytes else { return nil }
                // Inside the input (the scanner's spans): keep a range; else (jansson's unescaped copy): copy.
                if let base, let start = text.baseAddress, start >= base, start + text.count <= base + input.count {
                    let offset = start - base
                    return .span(offset..<(offset + text.count))
                }
                return .copy(Array(text))
            }
            let stringFields = strings.map { name in object.member(name).map { Field(kind: $0.kind, string: bytes($0), json: nil) } }
            let valueFields = jsonValues.map { name in object.member(name).map { Field(kind: $0.kind, string: nil, json: $0.value.description) } }
            return (stringFields, valueFields)
        }
    }
}
