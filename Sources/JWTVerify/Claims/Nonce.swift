/// The OpenID Connect nonce as Sign in with Apple and Firebase use it.
///
/// The app generates a random raw nonce, sends the lowercase hex SHA-256 of it with the sign-in
/// request, and the provider copies that hash into the token's `nonce` claim. The server, which
/// knows the raw nonce, checks `nonce == hex(SHA-256(raw))`: plain string equality, so upper-case
/// hex, the raw value itself or a base64url hash do not match.
public enum Nonce {
    /// The `nonce` claim a provider puts in a token for this raw nonce: lowercase hex SHA-256 of
    /// its UTF-8 octets.
    public static func expectedClaim(forRawNonce raw: String) -> String {
        var raw = raw
        return raw.withUTF8 { rawBuffer in
            withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { hex in
                writeExpectedClaim(forRawNonce: UnsafeRawBufferPointer(rawBuffer), into: hex)
                return String(decoding: hex, as: UTF8.self)
            }
        }
    }

    /// Whether `claim` equals the expected claim for `rawNonce`, compared in constant time.
    static func matches(claim: UnsafeRawBufferPointer, rawNonce: UnsafeRawBufferPointer) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { expected in
            writeExpectedClaim(forRawNonce: rawNonce, into: expected)
            return ConstantTime.equals(claim, UnsafeRawBufferPointer(expected))
        }
    }

    /// Writes the 64 lowercase hex digits of SHA-256(`raw`) into `out`.
    private static func writeExpectedClaim(
        forRawNonce raw: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) {
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { digest in
            _ = MessageDigest.unretainedSHA256._withUnsafeGuaranteedRef { $0.hash(raw, into: digest) }
            HexDigits.write(UnsafeRawBufferPointer(digest), to: out.baseAddress!)
        }
    }
}

/// Comparisons whose running time does not depend on where the inputs differ.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Lengths are not secret: different lengths return
    /// at once; equal lengths always compare every byte.
    static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
