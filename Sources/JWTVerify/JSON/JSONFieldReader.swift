/// Reads a few named members of a JSON object in one concrete (non-generic) call, for callers
/// outside this module that must not pay for unspecialised generic parsing per line (the CLI's
/// request lines). The fast scanner reads ordinary objects, jansson the rest, as everywhere.
package enum JSONFieldReader {
    /// One member as read: its kind, and where its string's bytes and its compact JSON are, which
    /// ``Fields`` resolves. Plain data: a line's members are set, read and dropped without a
    /// reference count.
    package struct Field: Sendable {
        package var kind: JSONKind
        /// The string's bytes: a span of the input, or of the reading's copies (`copied`); an
        /// empty span with `isString` false for a member that is not a string.
        fileprivate var start = 0
        fileprivate var end = 0
        fileprivate var isString = false
        fileprivate var copied = false
        /// Its compact JSON's place among the reading's texts, when asked for; -1 otherwise.
        fileprivate var json = -1

        fileprivate init(kind: JSONKind) { self.kind = kind }
    }

    /// The members read, lent to the caller's closure (they live on its stack frame, not in
    /// arrays allocated per line).
    package struct Fields {
        fileprivate let slots: UnsafeBufferPointer<Field?>
        fileprivate let stringCount: Int
        /// Strings jansson unescaped (not the input's own bytes), one after another.
        fileprivate let copies: UnsafeRawBufferPointer
        /// The compact JSON of the members asked for as JSON.
        fileprivate let texts: UnsafeBufferPointer<String>

        /// The member of the `strings` list at `index`; `nil` when absent.
        package func string(_ index: Int) -> Field? { slots[index] }
        /// The member of the `jsonValues` list at `index`; `nil` when absent.
        package func jsonValue(_ index: Int) -> Field? { slots[stringCount + index] }

        /// A string member's bytes: a span of the input, or a copy where jansson unescaped them;
        /// `nil` when it is not a string.
        package func bytes(of field: Field) -> InputBytes? {
            guard field.isString else { return nil }
            guard field.copied else { return .span(field.start..<field.end) }
            return .copy(Array(UnsafeRawBufferPointer(rebasing: copies[field.start..<field.end])))
        }

        /// A member's value as compact JSON, when it was asked for as one.
        package func json(of field: Field) -> String? { field.json < 0 ? nil : texts[field.json] }
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
            var copies: [UInt8] = []
            var texts: [String] = []
            let parsed = withUnsafeMutablePointer(to: &copies) { copies in
                withUnsafeMutablePointer(to: &texts) { texts in
                    JSONObjectParser.parse(
                        input,
                        Reading(
                            input: input, strings: strings, jsonValues: jsonValues, slots: slots, copies: copies,
                            texts: texts))
                }
            }
            copies.withUnsafeBytes { copies in
                texts.withUnsafeBufferPointer { texts in
                    body(
                        parsed.map {
                            Fields(
                                slots: UnsafeBufferPointer(slots), stringCount: strings.count, copies: copies,
                                texts: texts)
                        })
                }
            }
        }
    }

    private struct Reading: JSONObjectConsumer {
        let input: UnsafeRawBufferPointer
        let strings: [StaticString]
        let jsonValues: [StaticString]
        let slots: UnsafeMutableBufferPointer<Field?>
        /// The reading's own storage (``read(_:strings:jsonValues:_:)``'s locals), for the rare
        /// string jansson unescaped and the members asked for as JSON.
        let copies: UnsafeMutablePointer<[UInt8]>
        let texts: UnsafeMutablePointer<[String]>

        func consume<Object: JSONObjectReading>(_ object: Object) {
            let base = input.baseAddress.map(UnsafeRawPointer.init)
            for (index, name) in strings.enumerated() {
                guard let value = object.member(name) else { continue }
                var field = Field(kind: value.kind)
                if let text = value.stringBytes {
                    field.isString = true
                    // Inside the input (the scanner's spans): keep a range; else (jansson's unescaped copy): copy.
                    if let base, let start = text.baseAddress, start >= base, start + text.count <= base + input.count {
                        field.start = start - base
                        field.end = field.start + text.count
                    } else {
                        field.copied = true
                        field.start = copies.pointee.count
                        copies.pointee.append(contentsOf: text)
                        field.end = copies.pointee.count
                    }
                }
                slots[index] = field
            }
            for (index, name) in jsonValues.enumerated() {
                guard let value = object.member(name) else { continue }
                var field = Field(kind: value.kind)
                field.json = texts.pointee.count
                texts.pointee.append(value.value.description)
                slots[strings.count + index] = field
            }
        }
    }
}
