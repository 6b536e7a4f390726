#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A strict, allocation-free JSON scanner for the shape real token headers and payloads have: one
/// object whose values are strings, numbers, `true`/`false`/`null`, arrays, and objects nested at
/// most ``maximumDepth`` levels deep (Firebase's `firebase` claim, `aud` arrays).
///
/// It never rejects: it either accepts (and only input that is valid under the rules
/// ``JSONDocument`` enforces, with the same members and values) or declines, and the caller hands
/// the bytes to jansson, the arbiter. It declines anything it is unsure of: escapes, bytes outside
/// printable ASCII inside strings, numbers other than plain integers of up to 15 digits, nesting
/// deeper than ``maximumDepth``, more than ``maximumMembers`` members in one object, duplicate
/// names at any depth, trailing data, or any syntax error. The differential tests keep the two
/// parsers in agreement.
package enum FlatJSONScanner {
    /// Most members a scanned object may have (more: declined).
    static let maximumMembers = 48
    /// Deepest nesting scanned; the outermost object is depth 1 (deeper: declined).
    static let maximumDepth = 4

    /// One member: name and value as byte ranges of the input.
    package struct Member {
        package var nameStart: Int32
        package var nameEnd: Int32
        package var valueStart: Int32
        package var valueEnd: Int32
        package var kind: JSONKind
    }

    /// Scratch for one object: its members, and beside them each name's key (its first eight
    /// bytes, zero-padded), so that names of up to eight bytes match in one compare, and an
    /// open-addressed index from a key's hash to its member, so that a name is found (and a
    /// duplicate caught) without a pass over the members. Kept apart from ``Member`` so that each
    /// buffer stays within what Swift allocates on the stack (1 KiB).
    struct MemberTable {
        let members: UnsafeMutableBufferPointer<Member>
        let keys: UnsafeMutableBufferPointer<UInt64>
        /// ``indexSlots`` entries: a member's position, or ``emptySlot`` (all of them, fresh).
        let index: UnsafeMutableBufferPointer<UInt8>

        var capacity: Int { members.count }

        /// Runs `body` with a table of ``maximumMembers`` entries on the stack.
        @inline(__always)
        static func with<R>(_ body: (MemberTable) -> R) -> R {
            withUnsafeTemporaryAllocation(of: Member.self, capacity: maximumMembers) { members in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: maximumMembers) { keys in
                    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: indexSlots) { index in
                        index.initialize(repeating: emptySlot)
                        return body(MemberTable(members: members, keys: keys, index: index))
                    }
                }
            }
        }
    }

    /// Slots of a ``MemberTable``'s index: a power of two above ``maximumMembers``, so a probe
    /// always reaches an empty slot.
    static let indexSlots = 64
    /// An index slot that holds no member.
    static let emptySlot: UInt8 = 0xFF

    /// The index slot a probe for `key` starts at: the top six bits of a multiplicative hash.
    @inline(__always)
    static func firstSlot(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> 58) }

    /// The key (see ``MemberTable``) of the `length`-byte name at `start` of `bytes`.
    @inline(__always)
    static func nameKey(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ length: Int) -> UInt64 {
        guard let base = bytes.baseAddress else { return 0 }
        if start + 8 <= bytes.count {
            let word = JSONStringBytes.word(base, at: start)
            return length >= 8 ? word : word & ((1 &<< (8 &* UInt64(length))) &- 1)
        }
        return nameKey(of: UnsafeRawBufferPointer(start: base + start, count: min(length, bytes.count - start)))
    }

    /// The key of a whole name (a name looked up, which has no bytes after it to read past): two
    /// loads that may overlap, each byte landing where it belongs, so no loop over the bytes.
    @inline(__always)
    static func nameKey(of name: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = name.baseAddress else { return 0 }
        let length = name.count
        if length >= 8 { return JSONStringBytes.word(base, at: 0) }
        if length >= 4 {
            let low = UInt64(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)))
            return low | high &<< (8 &* UInt64(length - 4))
        }
        if length == 0 { return 0 }
        let first = UInt64(name[0])
        let middle = UInt64(name[length / 2]) &<< (8 &* UInt64(length / 2))
        let last = UInt64(name[length - 1]) &<< (8 &* UInt64(length - 1))
        return first | middle | last
    }

    /// Scans `bytes`; when accepted, runs `body` with the object and returns true.
    static func accepts(_ bytes: UnsafeRawBufferPointer, _ body: (FlatJSONObject) -> Void) -> Bool {
        withObject(bytes) { body($0) } != nil
    }

    /// Scans `bytes`; when accepted, runs `body` with the object (valid only inside `body`).
    ///
    /// A document of up to ``SpecialIndex/maximumIndexedBytes`` is first marked in one SIMD pass
    /// (``SpecialIndex``), so each string's end is found from the marks; a longer one is read
    /// string by string.
    package static func withObject<R>(_ bytes: UnsafeRawBufferPointer, _ body: (FlatJSONObject) -> R) -> R? {
        guard bytes.count < Int(Int32.max), let base = bytes.baseAddress else { return nil }
        return SpecialIndex.with(bytes) { stops in
            MemberTable.with { table in
                guard let count = scan(bytes, into: table, stops: stops) else { return nil }
                return body(
                    FlatJSONObject(
                        base: base, members: UnsafeBufferPointer(rebasing: table.members[..<count]),
                        keys: UnsafeBufferPointer(rebasing: table.keys[..<count]),
                        index: UnsafeBufferPointer(table.index)))
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func skipSpace(_ bytes: UnsafeRawBufferPointer, _ i: inout Int) {
        while i < bytes.count && isSpace(bytes[i]) { i += 1 }
    }

    /// Fills `table` with the members of the document `bytes`; `nil` declines.
    static func scan(_ bytes: UnsafeRawBufferPointer, into table: MemberTable, stops: SpecialIndex = .none) -> Int? {
        var i = 0
        skipSpace(bytes, &i)
        guard let (count, close) = scanObject(bytes, from: i, depth: 1, into: table, stops: stops) else { return nil }
        i = close
        skipSpace(bytes, &i)
        return i == bytes.count ? count : nil
    }

    /// Scans the object whose `{` is at `start`; fills `table` and returns the member count and
    /// the index just past its `}`.
    static func scanObject(
        _ bytes: UnsafeRawBufferPointer, from start: Int, depth: Int, into table: MemberTable,
        stops: SpecialIndex = .none
    ) -> (count: Int, end: Int)? {
        let end = bytes.count
        guard start < end, bytes[start] == UInt8(ascii: "{") else { return nil }
        var i = start + 1
        skipSpace(bytes, &i)
        var count = 0
        if i < end && bytes[i] == UInt8(ascii: "}") { return (0, i + 1) }
        while true {
            guard count < table.capacity, i < end, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let nameStart = i + 1
            guard let nameEnd = scanString(bytes, from: nameStart, stops: stops) else { return nil }
            i = nameEnd + 1
            skipSpace(bytes, &i)
            guard i < end, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace(bytes, &i)
            guard i < end, let (kind, valueEnd) = scanValue(bytes, from: i, depth: depth, stops: stops) else {
                return nil
            }
            // Duplicate names (compared as raw bytes: no escapes were allowed), found on the way
            // to the name's slot in the index.
            let nameLength = nameEnd - nameStart
            let key = nameKey(bytes, nameStart, nameLength)
            var slot = firstSlot(key)
            while table.index[slot] != emptySlot {
                let j = Int(table.index[slot])
                if table.keys[j] == key {
                    let other = table.members[j]
                    if Int(other.nameEnd - other.nameStart) == nameLength
                        && (nameLength <= 8
                            || memoryEqual(bytes, nameStart + 8, Int(other.nameStart) + 8, nameLength - 8))
                    {
                        return nil
                    }
                }
                slot = (slot + 1) & (indexSlots - 1)
            }
            table.index[slot] = UInt8(truncatingIfNeeded: count)
            // Every offset fits: ``withObject(_:_:)`` takes no input of Int32.max bytes or more.
            table.members[count] = Member(
                nameStart: Int32(truncatingIfNeeded: nameStart), nameEnd: Int32(truncatingIfNeeded: nameEnd),
                valueStart: Int32(truncatingIfNeeded: i), valueEnd: Int32(truncatingIfNeeded: valueEnd), kind: kind)
            table.keys[count] = key
            count += 1
            i = valueEnd
            skipSpace(bytes, &i)
            guard i < end else { return nil }
            if bytes[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace(bytes, &i)
                continue
            }
            guard bytes[i] == UInt8(ascii: "}") else { return nil }
            return (count, i + 1)
        }
    }

    private static func memoryEqual(_ bytes: UnsafeRawBufferPointer, _ a: Int, _ b: Int, _ length: Int) -> Bool {
        for k in 0..<length where bytes[a + k] != bytes[b + k] { return false }
        return true
    }

    /// The index of the closing quote of a string starting at `start` (just after its opening
    /// quote), or `nil` for anything but printable ASCII without escapes.
    @inline(__always)
    static func scanString(_ bytes: UnsafeRawBufferPointer, from start: Int, stops: SpecialIndex = .none) -> Int? {
        // The first byte not read as plain (a quote, a backslash, a control character, DEL or
        // non-ASCII) is found exactly, and only a quote closes.
        let at = stops.firstSpecial(bytes, from: start)
        return at < bytes.count && bytes[at] == UInt8(ascii: "\"") ? at : nil
    }

    /// Scans one value starting at `start`, inside a container at `depth`; returns its kind and
    /// the index just past it.
    static func scanValue(
        _ bytes: UnsafeRawBufferPointer, from start: Int, depth: Int, stops: SpecialIndex = .none
    ) -> (JSONKind, Int)? {
        let end = bytes.count
        let byte = bytes[start]
        switch byte {
        case UInt8(ascii: "\""):
            guard let close = scanString(bytes, from: start + 1, stops: stops) else { return nil }
            return (.string, close + 1)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            var i = start
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            let digitsStart = i
            i = digitsEnd(bytes, from: i)
            let digits = i - digitsStart
            guard digits >= 1, digits <= 15, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else {
                return nil
            }
            // A fraction or exponent, or anything glued to the digits: let jansson decide.
            if i < end {
                let next = bytes[i]
                guard
                    isSpace(next) || next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == UInt8(ascii: "]")
                else {
                    return nil
                }
            }
            return (.integer, i)
        case UInt8(ascii: "t"): return literal(bytes, start, "true", .true)
        case UInt8(ascii: "f"): return literal(bytes, start, "false", .false)
        case UInt8(ascii: "n"): return literal(bytes, start, "null", .null)
        case UInt8(ascii: "{"):
            guard depth < maximumDepth else { return nil }
            return MemberTable.with { table in
                scanObject(bytes, from: start, depth: depth + 1, into: table, stops: stops).map { (.object, $0.end) }
            }
        case UInt8(ascii: "["):
            guard depth < maximumDepth else { return nil }
            var i = start + 1
            skipSpace(bytes, &i)
            guard i < end else { return nil }
            if bytes[i] == UInt8(ascii: "]") { return (.array, i + 1) }
            while true {
                guard i < end, let (_, next) = scanValue(bytes, from: i, depth: depth + 1, stops: stops) else {
                    return nil
                }
                i = next
                skipSpace(bytes, &i)
                guard i < end else { return nil }
                if bytes[i] == UInt8(ascii: "]") { return (.array, i + 1) }
                guard bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
                skipSpace(bytes, &i)
            }
        default:
            return nil
        }
    }

    /// The index of the first byte at or after `start` that is not an ASCII digit, or `bytes.count`;
    /// eight bytes at a time while they last. In each word a byte is flagged unless its high
    /// nibble is 3 and adding 6 leaves it so (0–9); a carry out of a flagged byte can flag the
    /// bytes above it, never one below, so the lowest flag is exact.
    @inline(__always)
    private static func digitsEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        let end = bytes.count
        if let base = bytes.baseAddress {
            let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
            let threes: UInt64 = 0x3030_3030_3030_3030
            let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            while i &+ 8 <= end {
                let word = JSONStringBytes.word(base, at: i)
                let off = ((word & highNibbles) ^ threes) | (((word &+ 0x0606_0606_0606_0606) & highNibbles) ^ threes)
                let flags = (((off & lows) &+ lows) | off) & ~lows
                if flags != 0 { return i &+ flags.trailingZeroBitCount &>> 3 }
                i &+= 8
            }
        }
        while i < end && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") { i &+= 1 }
        return i
    }

    private static func literal(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ word: StaticString, _ kind: JSONKind)
        -> (JSONKind, Int)?
    {
        let length = word.utf8CodeUnitCount
        guard start + length <= bytes.count else { return nil }
        let matches = word.withUTF8Buffer { expected in
            (0..<length).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { return nil }
        let after = start + length
        if after < bytes.count {
            let next = bytes[after]
            guard isSpace(next) || next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == UInt8(ascii: "]")
            else {
                return nil
            }
        }
        return (kind, after)
    }
}

/// An object accepted by ``FlatJSONScanner``; valid only while its input bytes are.
package struct FlatJSONObject: JSONObjectReading {
    package let base: UnsafeRawPointer
    package let members: UnsafeBufferPointer<FlatJSONScanner.Member>
    /// Each member's name key (see ``FlatJSONScanner/MemberTable``).
    let keys: UnsafeBufferPointer<UInt64>
    /// The members' index by key (see ``FlatJSONScanner/MemberTable``).
    let index: UnsafeBufferPointer<UInt8>

    /// Inlined where it is called, so that a literal name's key is folded into a constant.
    @inline(__always)
    package func member(_ name: StaticString) -> FlatJSONValue? {
        name.withUTF8Buffer { find(bytes: UnsafeRawBufferPointer($0)) }
    }

    package func member(named name: UnsafeRawBufferPointer) -> FlatJSONValue? { find(bytes: name) }

    /// The member whose name is the UTF-8 `wanted`: its key's probe through the index, to the
    /// member or to an empty slot.
    @inline(__always)
    private func find(bytes wanted: UnsafeRawBufferPointer) -> FlatJSONValue? {
        let length = wanted.count
        do {
            let key = FlatJSONScanner.nameKey(of: wanted)
            var slot = FlatJSONScanner.firstSlot(key)
            while true {
                let position = index[slot]
                if position == FlatJSONScanner.emptySlot { return nil }
                slot = (slot + 1) & (FlatJSONScanner.indexSlots - 1)
                guard keys[Int(position)] == key else { continue }
                let member = members[Int(position)]
                guard Int(member.nameEnd - member.nameStart) == length else { continue }
                // Past the key: names of up to 16 bytes in one more compare (of their last eight,
                // which overlap the key), longer ones byte by byte.
                let start = Int(member.nameStart)
                var same = true
                if length > 16 {
                    var k = 8
                    while k < length {
                        if base.load(fromByteOffset: start + k, as: UInt8.self) != wanted[k] {
                            same = false
                            break
                        }
                        k += 1
                    }
                } else if length > 8 {
                    same =
                        JSONStringBytes.word(base, at: start + length - 8)
                        == JSONStringBytes.word(wanted.baseAddress!, at: length - 8)
                }
                if same {
                    return FlatJSONValue(
                        base: base, kind: member.kind, start: Int(member.valueStart), end: Int(member.valueEnd))
                }
            }
        }
    }
}

/// A value inside a ``FlatJSONObject``: its kind and byte range (`base` + `start` ..< `end`).
package struct FlatJSONValue: JSONValueReading {
    package let base: UnsafeRawPointer
    package let kind: JSONKind
    package let start: Int
    package let end: Int

    package init(base: UnsafeRawPointer, kind: JSONKind, start: Int, end: Int) {
        self.base = base
        self.kind = kind
        self.start = start
        self.end = end
    }

    package var stringBytes: UnsafeRawBufferPointer? {
        kind == .string ? UnsafeRawBufferPointer(start: base + start + 1, count: end - start - 2) : nil
    }

    /// The scanner accepts no escapes: a string's bytes are always the input's own.
    package var stringRange: Range<Int>? { kind == .string ? (start + 1)..<(end - 1) : nil }

    package var number: Double? {
        guard kind == .integer else { return nil }
        var i = start
        var negative = false
        if base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        // At most 15 digits (the scanner declines more): no overflow.
        var value: Int64 = 0
        while i < end {
            value = value &* 10 &+ Int64(base.load(fromByteOffset: i, as: UInt8.self) &- UInt8(ascii: "0"))
            i &+= 1
        }
        return Double(negative ? -value : value)
    }

    /// The input up to the end of this value (offsets stay relative to `base`).
    private var prefix: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: end) }

    /// Runs `body` on each element of an array, in order, until it returns false.
    private func forEachElement(_ body: (FlatJSONValue) -> Bool) {
        guard kind == .array else { return }
        let all = prefix
        var i = start + 1
        func skipSpace() {
            while i < end {
                let b = all[i]
                guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
                i += 1
            }
        }
        skipSpace()
        while i < end && all[i] != UInt8(ascii: "]") {
            // Depth was checked when the document was scanned; re-scanning an element cannot fail.
            guard let (kind, next) = FlatJSONScanner.scanValue(all, from: i, depth: 1) else { return }
            if !body(FlatJSONValue(base: base, kind: kind, start: i, end: next)) { return }
            i = next
            skipSpace()
            if i < end && all[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace()
            }
        }
    }

    /// Runs `body` with the members of a nested object (empty for other kinds).
    private func withMembers<R>(_ body: (FlatJSONObject) -> R) -> R {
        FlatJSONScanner.MemberTable.with { table in
            var count = 0
            if kind == .object,
                let (scanned, _) = FlatJSONScanner.scanObject(prefix, from: start, depth: 1, into: table)
            {
                count = scanned
            }
            return body(
                FlatJSONObject(
                    base: base, members: UnsafeBufferPointer(rebasing: table.members[..<count]),
                    keys: UnsafeBufferPointer(rebasing: table.keys[..<count]), index: UnsafeBufferPointer(table.index)))
        }
    }

    package func withObject<R>(_ body: (FlatJSONObject) -> R) -> R? {
        kind == .object ? withMembers(body) : nil
    }

    package var count: Int {
        var n = 0
        forEachElement { _ in
            n += 1
            return true
        }
        return n
    }

    package subscript(index: Int) -> FlatJSONValue? {
        var position = 0
        var found: FlatJSONValue? = nil
        forEachElement { element in
            if position == index {
                found = element
                return false
            }
            position += 1
            return true
        }
        return found
    }

    package func member(_ name: StaticString) -> FlatJSONValue? {
        withMembers { $0.member(name) }
    }

    package func member(named name: UnsafeRawBufferPointer) -> FlatJSONValue? {
        withMembers { $0.member(named: name) }
    }

    package var value: JSONValue {
        switch kind {
        case .object:
            return withMembers { object in
                var copy: [String: JSONValue] = [:]
                for member in object.members {
                    let name = String(
                        decoding: UnsafeRawBufferPointer(
                            start: base + Int(member.nameStart), count: Int(member.nameEnd - member.nameStart)),
                        as: UTF8.self)
                    copy[name] =
                        FlatJSONValue(
                            base: base, kind: member.kind, start: Int(member.valueStart), end: Int(member.valueEnd)
                        ).value
                }
                return .object(copy)
            }
        case .array:
            var elements: [JSONValue] = []
            forEachElement { element in
                elements.append(element.value)
                return true
            }
            return .array(elements)
        case .string: return .string(string ?? "")
        case .integer: return .integer(Int64(number ?? 0))
        case .real: return .number(number ?? 0)
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }
}
