/// Builds output text into a byte buffer: JSON (the CLI's records, ``JSONValue/description``) and,
/// through the tooling's extension, tab-separated cells.
///
/// Strings are escaped per RFC 8259 (quote, backslash and control characters); everything else is
/// written as is, so valid UTF-8 in means valid JSON out.
///
/// A `OutputText` is not copyable: it owns its buffer outright (allocated once, grown by doubling,
/// freed in `deinit`), so a record's dozens of small appends are each a capacity check and a store.
package struct OutputText: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var length = 0
    private var capacity: Int
    private var needsComma = false

    /// An empty buffer.
    package init() {
        capacity = 256
        base = .allocate(capacity: 256)
    }

    deinit { base.deallocate() }

    /// The text written so far.
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: length)) }

    /// Hands the text over with its buffer, without copying it (a batch's records, on their way to
    /// the writer).
    package consuming func finish() -> FinishedOutputText {
        let finished = FinishedOutputText(takingOwnershipOf: base, count: length)
        discard self
        return finished
    }

    /// The text as a `String`.
    package var string: String { String(decoding: UnsafeBufferPointer(start: base, count: length), as: UTF8.self) }

    /// The number of octets written.
    package var count: Int { length }

    /// Makes room for `count` octets in one allocation.
    package mutating func reserveCapacity(_ count: Int) { ensure(Swift.max(0, count - length)) }

    /// Removes everything written, keeping the buffer's capacity.
    package mutating func reset() {
        length = 0
        needsComma = false
    }

    /// Appends raw bytes between documents (a line break); the next value starts a new document.
    package mutating func appendRaw(_ raw: some Sequence<UInt8>) {
        for byte in raw { write(byte) }
        needsComma = false
    }

    /// Appends raw bytes in one copy, as the sequence form does: the next
    /// value starts a new document (other text formats built on this buffer, like `audit`'s TSV).
    package mutating func appendRaw(_ raw: UnsafeRawBufferPointer) {
        write(raw)
        needsComma = false
    }

    /// Room for `extra` more octets.
    @inline(__always)
    private mutating func ensure(_ extra: Int) {
        guard length + extra > capacity else { return }
        grow(to: length + extra)
    }

    private mutating func grow(to needed: Int) {
        let newCapacity = Swift.max(needed, 2 * capacity)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: length)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    private mutating func write(_ byte: UInt8) {
        ensure(1)
        base[length] = byte
        length += 1
    }

    @inline(__always)
    private mutating func write(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0, let source = bytes.baseAddress else { return }
        ensure(n)
        Self.copy(source, n, to: UnsafeMutableRawPointer(base + length))
        length += n
    }

    /// Copies `count` (> 0) octets: up to 16 as two loads and two stores that may overlap (each
    /// octet lands where it belongs), more through `memcpy`.
    @inline(__always)
    private static func copy(_ source: UnsafeRawPointer, _ count: Int, to target: UnsafeMutableRawPointer) {
        if count >= 8 && count <= 16 {
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 && count < 8 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: count &- 4, as: UInt32.self)
        } else if count < 4 {
            for i in 0..<count {
                target.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
            }
        } else {
            target.copyMemory(from: source, byteCount: count)
        }
    }

    /// Ends a JSON Lines record: a line break; the next value starts a new document.
    package mutating func newline() {
        write(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Appends `{`.
    package mutating func beginObject() {
        separate()
        write(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Appends `}`.
    package mutating func endObject() {
        write(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Appends `[`.
    package mutating func beginArray() {
        separate()
        write(UInt8(ascii: "["))
        needsComma = false
    }

    /// Appends `]`.
    package mutating func endArray() {
        write(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Appends a member name known at compile time (plain ASCII, nothing to escape) and its colon.
    package mutating func key(_ name: StaticString) {
        guard name.hasPointerRepresentation else {
            // A one-scalar StaticString has no pointer: the general path.
            separate()
            name.withUTF8Buffer { quoted(UnsafeRawBufferPointer($0)) }
            write(UInt8(ascii: ":"))
            needsComma = false
            return
        }
        // The comma, the quotes and the colon under one capacity check.
        let n = name.utf8CodeUnitCount
        ensure(n &+ 4)
        var at = length
        if needsComma {
            base[at] = UInt8(ascii: ",")
            at &+= 1
        }
        base[at] = UInt8(ascii: "\"")
        if n > 0 { Self.copy(name.utf8Start, n, to: UnsafeMutableRawPointer(base + at + 1)) }
        base[at &+ n &+ 1] = UInt8(ascii: "\"")
        base[at &+ n &+ 2] = UInt8(ascii: ":")
        length = at &+ n &+ 3
        needsComma = false
    }

    /// Appends members written out in full at compile time (`"valid":true,"reason":null`), after a
    /// comma when one is due: one copy for a run of members whose values never change.
    package mutating func literalMembers(_ members: StaticString) {
        separate()
        appendASCII(members)
        needsComma = true
    }

    /// Appends a member name and its colon.
    @_disfavoredOverload
    package mutating func key(_ name: String) {
        separate()
        var name = name
        name.withUTF8 { quoted(UnsafeRawBufferPointer($0)) }
        write(UInt8(ascii: ":"))
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
        // Native strings are contiguous UTF-8: read in place, no copy of the string.
        if value.utf8.withContiguousStorageIfAvailable({ quoted(UnsafeRawBufferPointer($0)) }) == nil {
            var copy = value
            copy.withUTF8 { quoted(UnsafeRawBufferPointer($0)) }
        }
        needsComma = true
    }

    /// Appends a number: integral values within ±2^53 without a fraction, others in Swift's
    /// shortest round-trip form.
    package mutating func number(_ value: Double) {
        separate()
        if value.isFinite, value == value.rounded(), abs(value) <= 9_007_199_254_740_992 {
            appendDigits(Int64(value))
        } else if value.isFinite {
            var text = "\(value)"
            text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        } else {
            appendASCII("null")
        }
        needsComma = true
    }

    /// Appends an integer.
    package mutating func integer(_ value: Int) {
        separate()
        appendDigits(Int64(value))
        needsComma = true
    }

    /// Writes the decimal digits of `value` (no `String` in between), straight into the buffer.
    private mutating func appendDigits(_ value: Int64) {
        if value < 0 { write(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let count = Self.decimalDigits(magnitude)
        ensure(count)
        // Two digits per division, from the table of "00" through "99".
        var position = length + count
        Self.digitPairs.withUTF8Buffer { pairs in
            while magnitude >= 10 {
                let pair = Int(magnitude % 100) &* 2
                magnitude /= 100
                position -= 2
                base[position] = pairs[pair]
                base[position + 1] = pairs[pair + 1]
                if magnitude == 0 { return }
            }
            position -= 1
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
        length += count
    }

    /// The number of decimal digits of `value` (1 for 0): from its bit length, one compare to
    /// settle between two candidates.
    @inline(__always)
    static func decimalDigits(_ value: UInt64) -> Int {
        // ⌈bits · log10 2⌉ is the count or one more; the power of ten below it decides.
        // (0 counts as 1, which has the same count of digits as 0.)
        let odd = value | 1
        let guess = ((64 &- odd.leadingZeroBitCount) &* 1233) &>> 12
        return guess &+ (odd >= powersOfTen[guess] ? 1 : 0)
    }

    /// 10^0 … 10^19.
    private static let powersOfTen: [UInt64] = (0..<20).map { (0..<$0).reduce(1) { value, _ in value * 10 } }

    /// "00", "01", … "99", back to back.
    private static let digitPairs: StaticString = """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """

    /// Appends `true` or `false`.
    package mutating func bool(_ value: Bool) {
        separate()
        appendASCII(value ? "true" : "false")
        needsComma = true
    }

    /// Appends `null`.
    package mutating func null() {
        separate()
        appendASCII("null")
        needsComma = true
    }

    /// Appends already-serialised JSON as one value.
    package mutating func rawValue(_ json: String) {
        separate()
        var json = json
        json.withUTF8 { write(UnsafeRawBufferPointer($0)) }
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

    /// Appends `"name": value` for the string claim `claim` of `claims`, read in place, or
    /// `"name": null` when it is absent.
    package mutating func member(
        _ name: StaticString, _ claim: RegisteredClaims.TextClaim, of claims: borrowing RegisteredClaims
    ) {
        key(name)
        // A claim kept in place is a string the fast scanner read: printable ASCII with no quote or
        // backslash, so nothing in it to escape.
        let plain = claims.isInPlace(claim)
        claims.withBytes(of: claim) { bytes in
            guard let bytes else { return null() }
            if plain { plainString(bytes) } else { string(bytes) }
        }
    }

    /// Appends a string value known to hold nothing JSON escapes.
    private mutating func plainString(_ value: UnsafeRawBufferPointer) {
        separate()
        quotedPlain(value)
        needsComma = true
    }

    /// Appends a string value from its UTF-8 bytes.
    package mutating func string(_ value: UnsafeRawBufferPointer) {
        separate()
        quoted(value)
        needsComma = true
    }

    /// Appends `"aud": …` as the token had it: a string, an array (also of one), or `null`.
    package mutating func audience(_ claims: borrowing RegisteredClaims) {
        if claims.has(.singleAudience) && !claims.audienceIsList { return member("aud", .singleAudience, of: claims) }
        key("aud")
        guard let audience = claims.audience else { return null() }
        if claims.audienceIsList {
            audienceList(audience)
        } else {
            string(audience[0])
        }
    }

    /// Appends the array of an `aud` that is one (``RegisteredClaims/audienceIsList``).
    package mutating func audienceList(_ audience: [String]) {
        beginArray()
        for member in audience { string(member) }
        endArray()
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

    /// Appends literal ASCII text (no array or `String` in between).
    private mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { write(UnsafeRawBufferPointer($0)) }
    }

    private mutating func separate() {
        if needsComma { write(UInt8(ascii: ",")) }
    }

    private mutating func quoted(_ value: some Collection<UInt8>) {
        if let done = value.withContiguousStorageIfAvailable({ quoted(UnsafeRawBufferPointer($0)) }) { return done }
        let copy = Array(value)
        copy.withUnsafeBytes { quoted($0) }
    }

    /// Appends `"value"`, copying runs of bytes that need no escape in bulk; a value with nothing
    /// to escape (the usual one) in one copy between its quotes.
    private mutating func quoted(_ value: UnsafeRawBufferPointer) {
        let n = value.count
        var at = JSONStringBytes.firstEscape(value, from: 0)
        if at == n { return quotedPlain(value) }
        // The first escape is already found: runs between escapes from there on.
        write(UInt8(ascii: "\""))
        var runStart = 0
        while true {
            if runStart < at { write(UnsafeRawBufferPointer(rebasing: value[runStart..<at])) }
            guard at < n else { break }
            appendEscaped(value[at])
            runStart = at + 1
            at = JSONStringBytes.firstEscape(value, from: runStart)
        }
        write(UInt8(ascii: "\""))
    }

    /// Appends `"value"` for a value with nothing to escape, in one copy between its quotes.
    @inline(__always)
    private mutating func quotedPlain(_ value: UnsafeRawBufferPointer) {
        let n = value.count
        ensure(n &+ 2)
        base[length] = UInt8(ascii: "\"")
        if n > 0, let source = value.baseAddress {
            Self.copy(source, n, to: UnsafeMutableRawPointer(base + length + 1))
        }
        base[length &+ n &+ 1] = UInt8(ascii: "\"")
        length &+= n &+ 2
    }

    /// Appends `bytes` as a string of lowercase hex digits (digests, fingerprints).
    package mutating func hexString(_ digest: [UInt8]) {
        digest.withUnsafeBytes { hexString($0) }
    }

    /// Appends `digest` as a string of lowercase hex digits.
    package mutating func hexString(_ digest: SHA256Digest) {
        digest.withUnsafeBytes { hexString($0) }
    }

    /// Appends `bytes` as a string of lowercase hex digits.
    package mutating func hexString(_ digest: UnsafeRawBufferPointer) {
        separate()
        ensure(2 * digest.count + 2)
        base[length] = UInt8(ascii: "\"")
        HexDigits.write(digest, to: UnsafeMutableRawPointer(base + length + 1))
        length += 2 * digest.count + 1
        write(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): appendASCII("\\\"")
        case UInt8(ascii: "\\"): appendASCII("\\\\")
        case UInt8(ascii: "\n"): appendASCII("\\n")
        case UInt8(ascii: "\r"): appendASCII("\\r")
        case UInt8(ascii: "\t"): appendASCII("\\t")
        default:
            appendASCII("\\u00")
            write(HexDigits.digit(byte >> 4))
            write(HexDigits.digit(byte & 0x0F))
        }
    }
}
