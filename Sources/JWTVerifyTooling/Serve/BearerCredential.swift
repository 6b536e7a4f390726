/// The token of a gateway check, as RFC 6750 §2.1 carries it: `Authorization: Bearer <token68>`.
package enum BearerCredential {
    /// What an `Authorization` header value holds.
    package enum Parsed: Equatable {
        /// A bearer token: the byte range of the token within the value.
        case token(Range<Int>)
        /// No bearer credentials: no header, or another scheme (Basic, …).
        case absent
        /// `Bearer` with nothing usable after it, or bytes a token68 cannot hold.
        case malformed
    }

    /// Reads `Authorization: Bearer <token>`: the scheme in any letter case, then one or more
    /// spaces, then a token68 (`A-Z a-z 0-9 - . _ ~ + /`, then `=` padding), then optional
    /// trailing spaces. Anything else after the scheme is ``Parsed/malformed``.
    package static func parse(authorization value: UnsafeRawBufferPointer) -> Parsed {
        let scheme: [UInt8] = Array("bearer".utf8)
        guard value.count > scheme.count else { return value.count == scheme.count && hasScheme(value, scheme) ? .malformed : .absent }
        guard hasScheme(value, scheme) else { return .absent }
        var index = scheme.count
        guard value[index] == UInt8(ascii: " ") else { return .absent }  // "Bearerx" is another scheme
        while index < value.count, value[index] == UInt8(ascii: " ") { index += 1 }
        let start = index
        while index < value.count, isToken68(value[index]) { index += 1 }
        while index < value.count, value[index] == UInt8(ascii: "=") { index += 1 }
        let end = index
        while index < value.count, value[index] == UInt8(ascii: " ") { index += 1 }
        guard end > start, index == value.count else { return .malformed }
        return .token(start..<end)
    }

    /// A token taken whole from a configured header or cookie: surrounding spaces removed; empty,
    /// or holding bytes outside the compact serialisation's alphabet, is ``Parsed/malformed``.
    package static func parse(plain value: UnsafeRawBufferPointer) -> Parsed {
        var start = 0
        var end = value.count
        while start < end, value[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, value[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard end > start else { return .absent }
        for byte in value[start..<end] where !isToken68(byte) && byte != UInt8(ascii: "=") { return .malformed }
        return .token(start..<end)
    }

    private static func hasScheme(_ value: UnsafeRawBufferPointer, _ scheme: [UInt8]) -> Bool {
        for (i, letter) in scheme.enumerated() where value[i] | 0x20 != letter { return false }
        return true
    }

    private static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
