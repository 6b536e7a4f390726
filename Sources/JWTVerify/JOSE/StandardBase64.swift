/// Standard base64 with padding (RFC 4648 §4), as `x5c` carries certificates (RFC 7515 §4.1.6),
/// decoded strictly: the length a multiple of four, `=` only as the final one or two characters,
/// no whitespace, and unused bits zero (one certificate has one spelling).
enum StandardBase64 {
    /// The decoded octets, or `nil` when `text` is not strict standard base64.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var translated: [UInt8] = []
        translated.reserveCapacity(text.count)
        var padding = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "="):
                padding += 1
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "_"):
                return nil
            case UInt8(ascii: "+"):
                guard padding == 0 else { return nil }
                translated.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"):
                guard padding == 0 else { return nil }
                translated.append(UInt8(ascii: "_"))
            default:
                guard padding == 0 else { return nil }
                translated.append(byte)
            }
        }
        guard padding <= 2 else { return nil }
        // The base64url decoder is strict about its alphabet and the unused bits.
        return Base64URL.decode(translated)
    }
}
