/// The `nonce` of an App Store signature: a UUID in lowercase, as Apple's libraries write it
/// (`str(uuid.uuid4())`), either given or made here from 122 random bits (version 4).
package enum AppStoreNonce {
    /// `given` in lowercase when it is a UUID (`8-4-4-4-12` hexadecimal digits, either case); a
    /// new random one when it is `nil`; else ``AppleClientSecret/Failure/Code/invalidNonce``.
    static func make(_ given: String?) throws(AppleClientSecret.Failure) -> String {
        guard let given else { return random() }
        guard let lowercased = lowercasedUUID(given) else {
            throw AppleClientSecret.Failure(
                .invalidNonce, "the nonce must be a UUID (8-4-4-4-12 hexadecimal digits)")
        }
        return lowercased
    }

    /// `text` in lowercase when it is a UUID, else `nil`.
    package static func lowercasedUUID(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                lowered.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): lowered.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): lowered.append(byte | 0x20)
            default: return nil
            }
        }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// A random version 4 UUID (RFC 9562 §5.4), in lowercase, from the system's secure generator.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
