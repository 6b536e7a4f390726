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
}
