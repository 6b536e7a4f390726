#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text compared and hashed by its UTF-8 bytes: the one way JWTVerify matches an identifier that
/// arrives from outside (`kid`, `iss`, `aud`, `typ`, JWK members, route, profile and preset names).
///
/// Swift's `String` equality, and so `String`-keyed dictionaries and sets, is Unicode canonical
/// equivalence: `"\u{212A}1"` (KELVIN SIGN) `== "K1"` and `"\u{E9}" == "e\u{301}"` are both
/// `true`. An identifier is the bytes its issuer wrote, so two spellings that are different bytes
/// are different identifiers: a token naming one must never be verified by the key, route or
/// policy named by the other. Use this type as the key of a dictionary or set, and
/// `exactlyEquals(_:_:)` for one comparison.
///
/// Wrapping costs no allocation (the string is kept, not copied), and hashing reads the string's
/// contiguous UTF-8 (native Swift strings always have it), so a lookup is as cheap as a `String`
/// one, cheaper for non-ASCII text (no normalization).
package struct ExactBytes: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The text, as given.
    package let text: String

    /// `text`, to be compared by its bytes.
    @inline(__always)
    package init(_ text: String) { self.text = text }

    /// A literal, for `switch` over untrusted text (`case "RSA":` matches those three bytes only).
    package init(stringLiteral text: String) { self.text = text }

    /// Whether the two texts are the same bytes.
    @inline(__always)
    package static func == (lhs: ExactBytes, rhs: ExactBytes) -> Bool { exactlyEquals(lhs.text, rhs.text) }

    /// Hashes the UTF-8 bytes and their count.
    package func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }

    /// The text.
    package var description: String { text }
}

/// Whether `a` and `b` are the same UTF-8 bytes (both absent counts as equal): never Unicode
/// equivalence (see ``ExactBytes``).
@inline(__always)
package func exactlyEquals(_ a: String?, _ b: String?) -> Bool {
    guard var a, var b else { return a == nil && b == nil }
    guard a.utf8.count == b.utf8.count else { return false }
    return a.withUTF8 { x in
        b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
    }
}

/// Whether `text`'s UTF-8 is exactly `bytes` (one `memcmp`), for bytes kept from the
/// configuration: what the per-token `iss`/`aud` checks use.
@inline(__always)
package func exactlyEquals(_ text: String, _ bytes: [UInt8]) -> Bool {
    var text = text
    return text.withUTF8 { own in
        guard own.count == bytes.count else { return false }
        guard let ownBase = own.baseAddress else { return true }
        return bytes.withUnsafeBytes { memcmp(ownBase, $0.baseAddress!, own.count) == 0 }
    }
}

/// Whether two lists hold the same texts, byte for byte, in the same order (both absent counts
/// as equal).
package func exactlyEquals(_ a: [String]?, _ b: [String]?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return a.count == b.count && zip(a, b).allSatisfy { exactlyEquals($0, $1) }
}

extension Sequence<String> {
    /// Whether one element is exactly `text`'s bytes (never a Unicode-equivalent spelling).
    package func containsExactly(_ text: String) -> Bool { contains { exactlyEquals($0, text) } }
}
