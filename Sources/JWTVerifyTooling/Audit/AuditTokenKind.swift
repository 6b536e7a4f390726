import JWTVerify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `audit` takes a token it found for, by its header (read without trust): a DPoP proof,
/// an access token, or any other token.
///
/// A proof has the `typ` `dpop+jwt` byte for byte, as RFC 9449 §4.2 names it and the library's
/// proof check takes it, and a `jwk`, the key it is judged by (``DPoPProofForm``). A header with
/// either missing (an ID token relabelled `dpop+jwt`, a `DPoP+JWT`) is no proof: it is judged as
/// any token, and refused there as the library refuses it (`header_invalid`). An access token's
/// `typ` is `at+jwt` as a media type (RFC 7515 §4.1.9: ASCII case ignored, `application/`
/// optional); that only counts it, its verdict is the profile's.
package enum AuditTokenKind: String, Sendable {
    /// Any other token: judged against the audit's keys and profile.
    case token
    /// `typ` `at+jwt` (RFC 9068): judged like any token, and counted apart.
    case accessToken = "access_token"
    /// `typ` `dpop+jwt` and a `jwk` (RFC 9449): judged by that key, never by the audit's.
    case dpopProof = "dpop_proof"

    /// The header segment's decoded bytes are looked at only up to this length.
    private static let headerLimit = 4096

    /// The kind of `token` (a compact JWS as found). Only a header whose bytes hold `+jwt` (in
    /// any case) is parsed, so other tokens cost one decode into the stack.
    package static func of(_ token: UnsafeRawBufferPointer) -> AuditTokenKind {
        let end = token.firstIndex(of: UInt8(ascii: ".")) ?? token.count
        guard end > 0, end <= headerLimit, let length = Base64URL.decodedLength(end) else { return .token }
        return withUnsafeTemporaryAllocation(byteCount: max(length, 1), alignment: 1) { buffer in
            let segment = UnsafeRawBufferPointer(rebasing: token[..<end])
            guard let count = Base64URL.decode(segment, into: buffer) else { return .token }
            let header = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            guard contains(header, "+jwt"), case .success(let document) = JSONDocument.parse(header) else {
                return .token
            }
            return document.withRoot { root in
                guard root.kind == .object, let typ = root.member("typ")?.stringBytes else { return .token }
                if typ.elementsEqual("dpop+jwt".utf8) { return root.member("jwk") != nil ? .dpopProof : .token }
                if mediaType(typ, is: "at+jwt") { return .accessToken }
                return .token
            }
        }
    }

    /// Whether `typ` is `name` or `application/name`, ignoring ASCII case.
    static func mediaType(_ typ: UnsafeRawBufferPointer, is name: String) -> Bool {
        let prefix = Array("application/".utf8)
        var value = typ[...]
        if value.count > prefix.count, lowered(value.prefix(prefix.count)).elementsEqual(prefix) {
            value = value.dropFirst(prefix.count)
        }
        return lowered(value).elementsEqual(name.utf8)
    }

    private static func lowered(_ bytes: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// Whether `bytes` hold `needle` (lowercase ASCII that starts with a byte no case changes,
    /// like `+`), ignoring ASCII case: each occurrence of its first byte found by `memchr`, the
    /// rest compared after it.
    static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: StaticString) -> Bool {
        let pattern = UnsafeRawBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let base = bytes.baseAddress, pattern.count > 0, bytes.count >= pattern.count else { return false }
        let last = bytes.count - pattern.count
        var start = 0
        while start <= last {
            guard let found = memchr(base + start, Int32(pattern[0]), last - start + 1) else { return false }
            let at = base.distance(to: UnsafeRawPointer(found))
            var offset = 1
            while offset < pattern.count {
                let byte = bytes[at + offset]
                guard (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == pattern[offset] else { break }
                offset += 1
            }
            if offset == pattern.count { return true }
            start = at + 1
        }
        return false
    }

    /// The `cnf.jkt` of an access token's payload, read without trust (the binding the audit
    /// looks for a proof of, whatever the token's verdict).
    package static func boundThumbprint(_ token: UnsafeRawBufferPointer) -> String? {
        guard let first = token.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let rest = token[(first + 1)...]
        guard let second = rest.firstIndex(of: UInt8(ascii: ".")),
            let payload = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[(first + 1)..<second])),
            case .success(let document) = JSONDocument.parse(payload)
        else { return nil }
        return document.withRoot { root in root.member("cnf")?.member("jkt")?.string }
    }
}
