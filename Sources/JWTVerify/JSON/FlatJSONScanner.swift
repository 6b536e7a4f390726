/// A strict, allocation-free JSON scanner for the shape real token headers and payloads have: one
/// object whose values are strings, numbers, `true`/`false`/`null`, or arrays of those.
///
/// It never rejects: it either accepts (and only input that is valid under the rules
/// ``JSONDocument`` enforces, with the same members and values) or declines, and the caller hands
/// the bytes to jansson, the arbiter. It declines anything it is unsure of: escapes, bytes outside
/// printable ASCII inside strings, numbers other than plain integers of up to 15 digits, nested
/// objects, arrays inside arrays, more than ``maximumMembers`` members, duplicate names, trailing
/// data, or any syntax error. The differential tests keep the two parsers in agreement.
enum FlatJSONScanner {
    /// Most members a scanned object may have (more: declined).
    static let maximumMembers = 48

    /// One member: name and value as byte ranges of the input.
    struct Member {
        var nameStart: Int32
        var nameEnd: Int32
        var valueStart: Int32
        var valueEnd: Int32
        var kind: JSONKind
    }

    /// Scans `bytes`; when accepted, runs `body` with the object and returns true.
    static func accepts(_ bytes: UnsafeRawBufferPointer, _ body: (FlatJSONObject) -> Void) -> Bool {
        guard bytes.count < Int(Int32.max), let base = bytes.baseAddress else { return false }
        return withUnsafeTemporaryAllocation(of: Member.self, capacity: maximumMembers) { table in
            guard let count = scan(bytes, into: table) else { return false }
            body(FlatJSONObject(base: base, members: UnsafeBufferPointer(rebasing: table[..<count])))
            return true
        }
    }

    /// Scans `bytes`; when accepted, runs `body` with the object (valid only inside `body`).
    static func withObject<R>(_ bytes: UnsafeRawBufferPointer, _ body: (FlatJSONObject) -> R) -> R? {
        guard bytes.count < Int(Int32.max), let base = bytes.baseAddress else { return nil }
        return withUnsafeTemporaryAllocation(of: Member.self, capacity: maximumMembers) { table in
            guard let count = scan(bytes, into: table) else { return nil }
            return body(FlatJSONObject(base: base, members: UnsafeBufferPointer(rebasing: table[..<count])))
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Fills `table` with the members; `nil` declines.
    static func scan(_ bytes: UnsafeRawBufferPointer, into table: UnsafeMutableBufferPointer<Member>) -> Int? {
        let end = bytes.count
        var i = 0
        func skipSpace() { while i < end && isSpace(bytes[i]) { i += 1 } }
        skipSpace()
        guard i < end, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        skipSpace()
        var count = 0
        if i < end && bytes[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                guard count < table.count, i < end, bytes[i] == UInt8(ascii: "\"") else { return nil }
                let nameStart = i + 1
                guard let nameEnd = scanString(bytes, from: nameStart) else { return nil }
                i = nameEnd + 1
                skipSpace()
                guard i < end, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                skipSpace()
                guard i < end, let (kind, valueEnd) = scanValue(bytes, from: i, allowArray: true) else { return nil }
                // Duplicate names (compared as raw bytes: no escapes were allowed).
                let nameLength = nameEnd - nameStart
                for j in 0..<count {
                    let other = table[j]
                    if Int(other.nameEnd - other.nameStart) == nameLength
                        && memoryEqual(bytes, nameStart, Int(other.nameStart), nameLength)
                    {
                        return nil
                    }
                }
                table[count] = Member(
                    nameStart: Int32(nameStart), nameEnd: Int32(nameEnd), valueStart: Int32(i), valueEnd: Int32(valueEnd),
                    kind: kind)
                count += 1
                i = valueEnd
                skipSpace()
                guard i < end else { return nil }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    skipSpace()
                    continue
                }
                guard bytes[i] == UInt8(ascii: "}") else { return nil }
                i += 1
                break
            }
        }
        skipSpace()
        return i == end ? count : nil
    }

    private static func memoryEqual(_ bytes: UnsafeRawBufferPointer, _ a: Int, _ b: Int, _ length: Int) -> Bool {
        for k in 0..<length where bytes[a + k] != bytes[b + k] { return false }
        return true
    }

    /// The index of the closing quote of a string starting at `start` (just after its opening
    /// quote), or `nil` for anything but printable ASCII without escapes.
    static func scanString(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        stringByteClass.withUnsafeBufferPointer { classes in
            var i = start
            while i < bytes.count {
                switch classes[Int(bytes[i])] {
                case 0: i += 1
                case 1: return i
                default: return nil
                }
            }
            return nil
        }
    }

    /// For each byte inside a string: 0 plain printable ASCII, 1 the closing quote, 2 decline
    /// (control characters, backslash escapes, DEL and every non-ASCII byte).
    private static let stringByteClass: [UInt8] = (0..<256).map { byte in
        if byte == Int(UInt8(ascii: "\"")) { return 1 }
        if byte < 0x20 || byte > 0x7E || byte == Int(UInt8(ascii: "\\")) { return 2 }
        return 0
    }

    /// Scans one value starting at `start`; returns its kind and the index just past it.
    static func scanValue(_ bytes: UnsafeRawBufferPointer, from start: Int, allowArray: Bool) -> (JSONKind, Int)? {
        let end = bytes.count
        let byte = bytes[start]
        switch byte {
        case UInt8(ascii: "\""):
            guard let close = scanString(bytes, from: start + 1) else { return nil }
            return (.string, close + 1)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            var i = start
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            let digitsStart = i
            while i < end && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") { i += 1 }
            let digits = i - digitsStart
            guard digits >= 1, digits <= 15, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else { return nil }
            // A fraction or exponent, or anything glued to the digits: let jansson decide.
            if i < end {
                let next = bytes[i]
                guard isSpace(next) || next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == UInt8(ascii: "]") else {
                    return nil
                }
            }
            return (.integer, i)
        case UInt8(ascii: "t"): return literal(bytes, start, "true", .true)
        case UInt8(ascii: "f"): return literal(bytes, start, "false", .false)
        case UInt8(ascii: "n"): return literal(bytes, start, "null", .null)
        case UInt8(ascii: "["):
            guard allowArray else { return nil }
            var i = start + 1
            while i < end && isSpace(bytes[i]) { i += 1 }
            guard i < end else { return nil }
            if bytes[i] == UInt8(ascii: "]") { return (.array, i + 1) }
            while true {
                guard i < end, let (_, next) = scanValue(bytes, from: i, allowArray: false) else { return nil }
                i = next
                while i < end && isSpace(bytes[i]) { i += 1 }
                guard i < end else { return nil }
                if bytes[i] == UInt8(ascii: "]") { return (.array, i + 1) }
                guard bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
                while i < end && isSpace(bytes[i]) { i += 1 }
            }
        default:
            return nil
        }
    }

    private static func literal(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ word: StaticString, _ kind: JSONKind) -> (JSONKind, Int)? {
        let length = word.utf8CodeUnitCount
        guard start + length <= bytes.count else { return nil }
        let matches = word.withUTF8Buffer { expected in
            (0..<length).allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { return nil }
        let after = start + length
        if after < bytes.count {
            let next = bytes[after]
            guard isSpace(next) || next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == UInt8(ascii: "]") else {
                return nil
            }
        }
        return (kind, after)
    }
}

/// An object accepted by ``FlatJSONScanner``; valid only while its input bytes are.
struct FlatJSONObject: JSONObjectReading {
    let base: UnsafeRawPointer
    let members: UnsafeBufferPointer<FlatJSONScanner.Member>

    func member(_ name: StaticString) -> FlatJSONValue? {
        let length = name.utf8CodeUnitCount
        return name.withUTF8Buffer { wanted -> FlatJSONValue? in
            for member in members where Int(member.nameEnd - member.nameStart) == length {
                let start = Int(member.nameStart)
                var same = true
                for k in 0..<length where base.load(fromByteOffset: start + k, as: UInt8.self) != wanted[k] {
                    same = false
                    break
                }
                if same {
                    return FlatJSONValue(base: base, kind: member.kind, start: Int(member.valueStart), end: Int(member.valueEnd))
                }
            }
            return nil
        }
    }
}

/// A value inside a ``FlatJSONObject``.
struct FlatJSONValue: JSONValueReading {
    let base: UnsafeRawPointer
    let kind: JSONKind
    let start: Int
    let end: Int

    var stringBytes: UnsafeRawBufferPointer? {
        kind == .string ? UnsafeRawBufferPointer(start: base + start + 1, count: end - start - 2) : nil
    }

    var number: Double? {
        guard kind == .integer else { return nil }
        var i = start
        var negative = false
        if base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var value: Int64 = 0
        while i < end {
            value = value * 10 + Int64(base.load(fromByteOffset: i, as: UInt8.self) - UInt8(ascii: "0"))
            i += 1
        }
        return Double(negative ? -value : value)
    }

    private var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + start, count: end - start) }

    /// Start offsets (relative to `base`) of the elements of an array, walked once.
    private func forEachElement(_ body: (FlatJSONValue) -> Bool) {
        guard kind == .array else { return }
        let all = UnsafeRawBufferPointer(start: base, count: end)
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
            guard let (kind, next) = FlatJSONScanner.scanValue(all, from: i, allowArray: false) else { return }
            if !body(FlatJSONValue(base: base, kind: kind, start: i, end: next)) { return }
            i = next
            skipSpace()
            if i < end && all[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace()
            }
        }
    }

    var count: Int {
        var n = 0
        forEachElement { _ in
            n += 1
            return true
        }
        return n
    }

    subscript(index: Int) -> FlatJSONValue? {
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
}
