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
        guard let base = value.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .absent }
        let count = value.count
        let scheme = 6  // "bearer"
        guard count >= scheme, hasScheme(base) else { return .absent }
        guard count > scheme else { return .malformed }
        var index = scheme
        guard base[index] == UInt8(ascii: " ") else { return .absent }  // "Bearerx" is another scheme
        while index < count, base[index] == UInt8(ascii: " ") { index += 1 }
        let start = index
        let table = token68Table
        while index < count, table[Int(base[index])] != 0 { index += 1 }
        while index < count, base[index] == UInt8(ascii: "=") { index += 1 }
        let end = index
        while index < count, base[index] == UInt8(ascii: " ") { index += 1 }
        guard end > start, index == count else { return .malformed }
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

    private static func hasScheme(_ base: UnsafePointer<UInt8>) -> Bool {
        base[0] | 0x20 == UInt8(ascii: "b") && base[1] | 0x20 == UInt8(ascii: "e") && base[2] | 0x20 == UInt8(ascii: "a")
            && base[3] | 0x20 == UInt8(ascii: "r") && base[4] | 0x20 == UInt8(ascii: "e") && base[5] | 0x20 == UInt8(ascii: "r")
    }

    /// One octet per byte value: 1 for the token68 alphabet before padding (a per-byte table is
    /// several times faster than the masks below on a thousand-octet token).
    // Safety: written once, in the initializer, and only read after.
    nonisolated(unsafe) private static let token68Table: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 { table[byte] = isToken68(UInt8(byte)) ? 1 : 0 }
        return UnsafePointer(table)
    }()

    /// `A-Z a-z 0-9 - . _ ~ + /`, as two 64-bit masks over the octet values 0–127.
    @inline(__always)
    private static func isToken68(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return 0x03FF_E800_0000_0000 & bit != 0  // + - . / 0-9
        case 1: return 0x47FF_FFFE_87FF_FFFE & bit != 0  // A-Z _ a-z ~
        default: return false
        }
    }
}
