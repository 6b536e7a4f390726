/// The type a JWT declares in its `typ` header (RFC 7515 §4.1.9, RFC 8725 §3.11): a media type
/// whose `application/` prefix may be left out, compared in any ASCII letter case (media types are
/// case-insensitive), byte by byte. Explicit types keep one kind of token from being taken for
/// another (an ID token for an access token, RFC 9068 §4).
package struct TokenType: Sendable, Hashable {
    /// The media subtype, in lowercase ASCII (`jwt`, `at+jwt`).
    package let subtype: [UInt8]
    /// How details spell it (`JWT`, `at+jwt`).
    package let spelling: String
    /// For a type other than `JWT`: what a token typed `JWT`, or untyped, is taken to be instead,
    /// as the start of its refusal's detail ("an ID token, not an access token"); `nil` for `JWT`.
    package let untypedRefusal: String?

    /// A type, its subtype given in lowercase ASCII.
    package init(_ subtype: String, spelling: String, untypedRefusal: String?) {
        self.subtype = Array(subtype.utf8)
        self.spelling = spelling
        self.untypedRefusal = untypedRefusal
    }

    /// `JWT` (RFC 7519 §5.1): what every ID token and signed payload declares, when it declares a type.
    package static let jwt = TokenType("jwt", spelling: "JWT", untypedRefusal: nil)

    /// Whether `bytes` spell this type, with or without `application/`, in any ASCII letter case.
    func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let prefix: StaticString = "application/"
        let prefixLength = prefix.utf8CodeUnitCount
        if bytes.count == subtype.count { return Self.equalLowercased(bytes, 0, subtype) }
        guard bytes.count == prefixLength + subtype.count else { return false }
        let prefixMatches = prefix.withUTF8Buffer { Self.equalLowercased(bytes, 0, $0) }
        return prefixMatches && Self.equalLowercased(bytes, prefixLength, subtype)
    }

    /// The refusal of a token whose `typ` is `bytes` (`nil`: not a string), or that has none.
    func refusal(typ bytes: UnsafeRawBufferPointer?, present: Bool) -> VerificationError {
        if let untypedRefusal {
            if !present {
                return VerificationError(.headerInvalid, detail: "\(untypedRefusal) (typ is missing)")
            }
            if let bytes, Self.jwt.matches(bytes) {
                return VerificationError(
                    .headerInvalid, detail: "\(untypedRefusal) (typ \(JOSEHeader.printable(bytes)))")
            }
        } else if !present {
            return VerificationError(
                .headerInvalid, detail: "typ is missing, and this provider always sends \(spelling)")
        }
        let subtype = String(decoding: subtype, as: UTF8.self)
        return VerificationError(.headerInvalid, detail: "typ is not \(spelling) or application/\(subtype)")
    }

    /// Whether `bytes` from `offset` on, lowercased, are `expected` (lowercase ASCII).
    private static func equalLowercased<Expected: Collection<UInt8>>(
        _ bytes: UnsafeRawBufferPointer, _ offset: Int, _ expected: Expected
    ) -> Bool {
        var index = offset
        for want in expected {
            var byte = bytes[index]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != want { return false }
            index += 1
        }
        return true
    }
}
