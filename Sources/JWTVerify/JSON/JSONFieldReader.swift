/// Reads a few named members of a JSON object in one concrete (non-generic) call, for callers
/// outside this module that must not pay for unspecialised generic parsing per line (the CLI's
/// request lines). The fast scanner reads ordinary objects, jansson the rest, as everywhere.
package enum JSONFieldReader {
    /// One member as read: its kind, its bytes when it is a string, and when asked for, its
    /// value as compact JSON.
    package struct Field: Sendable {
        package var kind: JSONKind
        package var string: InputBytes?
        package var json: String?
    }

    /// The members read, lent to the caller's closure (they live on its stack frame, not in
    /// arrays allocated per line).
    package struct Fields {
        fileprivate let slots: UnsafeBufferPointer<Field?>
        fileprivate let stringCount: Int

        /// The member of the `strings` list at `index`; `nil` when absent.
        package func string(_ index: Int) -> Field? { slots[index] }
        /// The member of the `jsonValues` list at `index`; `nil` when absent.
        package func jsonValue(_ index: Int) -> Field? { slots[stringCount + index] }
    }

    /// Reads `strings` (each a member whose string bytes are wanted) and `jsonValues` (members
    /// wanted as compact JSON) from the object `input`, and runs `body` with them. Not generic, so
    /// a caller in another module runs the parser specialised here, not an unspecialised copy.
    package static func read(
        _ input: UnsafeRawBufferPointer, strings: [StaticString], jsonValues: [StaticString],
        _ body: (Result<Fields, JSONObjectParser.Problem>) -> Void
    ) {
        let count = strings.count + jsonValues.count
        withUnsafeTemporaryAllocation(of: Field?.self, capacity: max(count, 1)) { slots in
            let slots = UnsafeMutableBufferPointer(rebasing: slots[..<count])
            slots.initialize(repeating: nil)
            defer { slots.deinitialize() }
            let reading = Reading(input: input, strings: strings, jsonValues: jsonValues, slots: slots)
            body(
                JSONObjectParser.parse(input, reading).map {
                    Fields(slots: UnsafeBufferPointer(slots), stringCount: strings.count)
                })
        }
    }

    private struct Reading: JSONObjectConsumer {
        let input: UnsafeRawBufferPointer
        let strings: [StaticString]
        let jsonValues: [StaticString]
        let slots: UnsafeMutableBufferPointer<Field?>

        func consume<Object: JSONObjectReading>(_ object: Object) {
            let base = input.baseAddress.map(UnsafeRawPointer.init)
            func bytes(_ value: Object.Value) -> InputBytes? {
                guard let text = value.stringBytes else { return nil }
                // Inside the input (the scanner's spans): keep a range; else (jansson's unescaped copy): copy.
                if let base, let start = text.baseAddress, start >= base, start + text.count <= base + input.count {
                    let offset = start - base
                    return .span(offset..<(offset + text.count))
                }
                return .copy(Array(text))
            }
            for (index, name) in strings.enumerated() {
                slots[index] = object.member(name).map { Field(kind: $0.kind, string: bytes($0), json: nil) }
            }
            for (index, name) in jsonValues.enumerated() {
                slots[strings.count + index] = object.member(name).map {
                    Field(kind: $0.kind, string: nil, json: $0.value.description)
                }
            }
        }
    }
}
