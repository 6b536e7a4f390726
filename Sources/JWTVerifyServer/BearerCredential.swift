import JWTVerify

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

    /// Reads `Authorization: Bearer <token>` by ``TokenInput``'s rule with the scheme required
    /// (in any letter case, then spaces; whitespace around the whole): then a token68
    /// (`A-Z a-z 0-9 - . _ ~ + /`, then `=` padding). Another scheme is ``Parsed/absent``;
    /// `Bearer` with nothing usable after it ``Parsed/malformed``.
    package static func parse(authorization value: UnsafeRawBufferPointer) -> Parsed {
        switch TokenInput.locate(value, scheme: .required) {
        case nil: return .absent
        case .blank?: return value.isEmpty ? .absent : .malformed
        case .token(let range)?: return isToken68(value, range) ? .token(range) : .malformed
        }
    }

    /// A token taken whole from a configured header or cookie, by ``TokenInput``'s rule (a
    /// `Bearer` scheme may stand before it): nothing there is ``Parsed/absent``; bytes outside the
    /// compact serialisation's alphabet are ``Parsed/malformed``.
    package static func parse(plain value: UnsafeRawBufferPointer) -> Parsed {
        guard case .token(let range)? = TokenInput.locate(value) else { return .absent }
        return isToken68(value, range) ? .token(range) : .malformed
    }

    /// Reads `Authorization: DPoP <token>` (RFC 9449 §7.1): the scheme `DPoP` in any letter case,
    /// then spaces or tabs, then a token68, whitespace around the whole allowed. Another scheme is
    /// ``Parsed/absent``; `DPoP` with nothing usable after it ``Parsed/malformed``.
    package static func parse(dpopAuthorization value: UnsafeRawBufferPointer) -> Parsed {
        var start = 0
        var end = value.count
        while start < end, isSpace(value[start]) { start += 1 }
        while end > start, isSpace(value[end - 1]) { end -= 1 }
        let scheme: [UInt8] = Array("dpop".utf8)
        guard end - start >= 4, (0..<4).allSatisfy({ value[start + $0] | 0x20 == scheme[$0] }) else { return .absent }
        start += 4
        if start < end, !isSpace(value[start]) { return .absent }  // "DPoPx…": another scheme
        while start < end, isSpace(value[start]) { start += 1 }
        return isToken68(value, start..<end) ? .token(start..<end) : .malformed
    }

    /// Whether `value` is a token68 from end to end: a proof's `DPoP` header (RFC 9449 §4.1).
    package static func isToken68(_ value: UnsafeRawBufferPointer) -> Bool { isToken68(value, 0..<value.count) }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Whether `value[range]` is a token68: its alphabet, then only `=` padding.
    private static func isToken68(_ value: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        guard let base = value.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        let table = token68Table
        var index = range.lowerBound
        while index < range.upperBound, table[Int(base[index])] != 0 { index += 1 }
        while index < range.upperBound, base[index] == UInt8(ascii: "=") { index += 1 }
        return index == range.upperBound && range.lowerBound < range.upperBound
    }

    /// One octet per byte value: 1 for the token68 alphabet before padding (a per-byte table is
    /// several times faster than the masks below on a thousand-octet token).
    // Safety: written once, in the initializer, and only read after.
    nonisolated(unsafe) private static let token68Table: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 { table[byte] = isToken68Byte(UInt8(byte)) ? 1 : 0 }
        return UnsafePointer(table)
    }()

    /// `A-Z a-z 0-9 - . _ ~ + /`, as two 64-bit masks over the octet values 0–127.
    @inline(__always)
    private static func isToken68Byte(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return 0x03FF_E800_0000_0000 & bit != 0  // + - . / 0-9
        case 1: return 0x47FF_FFFE_87FF_FFFE & bit != 0  // A-Z _ a-z ~
        default: return false
        }
    }
}
