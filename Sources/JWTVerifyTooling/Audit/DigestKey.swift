import JWTVerify

/// The first 128 bits of a SHA-256: what repeat tracking keeps instead of tokens or nonces.
struct DigestKey: Hashable {
    let high: UInt64
    let low: UInt64
    init(_ digest: SHA256Digest) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        digest.withUnsafeBytes { digest in
            for i in 0..<8 { high = high << 8 | UInt64(digest[i]) }
            for i in 8..<16 { low = low << 8 | UInt64(digest[i]) }
        }
        self.high = high
        self.low = low
    }

    /// The key of a digest written as lowercase hex (at least its first 32 digits); `nil` for
    /// anything else.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count >= 32 else { return nil }
        func value(_ digit: UInt8) -> UInt64? {
            switch digit {
            case 0x30...0x39: UInt64(digit - 0x30)
            case 0x61...0x66: UInt64(digit - 0x61 + 10)
            default: nil
            }
        }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for i in 0..<16 {
            guard let a = value(digits[i]), let b = value(digits[16 + i]) else { return nil }
            high = high << 4 | a
            low = low << 4 | b
        }
        self.high = high
        self.low = low
    }
}
