import FoundationEssentials

/// Where an issuer's metadata is published: the two well-known URLs discovery tries, in order.
///
/// - OpenID Connect Discovery 1.0 §4 *appends* `/.well-known/openid-configuration` to the issuer,
///   after every terminating `/` of its path is removed (`…/a//` reads `…/a/.well-known/…`):
///   `https://id.example/tenant` →
///   `https://id.example/tenant/.well-known/openid-configuration`.
/// - RFC 8414 §3.1 *inserts* `/.well-known/oauth-authorization-server` between the host and the
///   path (again without the path's terminating `/`): `https://id.example/tenant` →
///   `https://id.example/.well-known/oauth-authorization-server/tenant`.
///
/// The issuer must be a URL fetched under the rule of every remote read (`https://`, or `http://`
/// to a loopback address), with a host and without a query or a fragment (RFC 8414 §2; OpenID
/// Connect Discovery §3), and without spaces or control bytes. Bytes past ASCII in its path are
/// percent-encoded in the URLs fetched (RFC 3987 §3.1); the issuer itself is compared as given.
package struct DiscoveryLocations: Sendable, Equatable {
    /// The OpenID Connect configuration's URL, tried first.
    package let openIDConfiguration: String
    /// RFC 8414's authorization server metadata URL, tried when the first answers 404 or 410.
    package let authorizationServerMetadata: String

    /// The two URLs for `issuer`, or why it cannot be discovered.
    package init(issuer: String) throws(DiscoveryRefusal) {
        let bytes = Array(issuer.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw .issuerRefused(issuer, "has a space or a control character")
        }
        guard !bytes.contains(UInt8(ascii: "?")), !bytes.contains(UInt8(ascii: "#")) else {
            throw .issuerRefused(issuer, "has a query or a fragment (an issuer has neither)")
        }
        guard let separator = Self.range(of: Array("://".utf8), in: bytes) else {
            throw .issuerRefused(issuer, "is not an absolute URL")
        }
        let authorityStart = separator.upperBound
        let pathStart = bytes[authorityStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        let origin = Array(bytes[..<pathStart])
        guard pathStart > authorityStart, origin.allSatisfy({ $0 < 0x80 }) else {
            throw .issuerRefused(issuer, "has no host, or a host that is not ASCII")
        }
        guard let url = URL(string: String(decoding: origin, as: UTF8.self)), let host = url.host, !host.isEmpty,
            HTTPTransfer.isAllowed(url)
        else {
            throw .issuerRefused(issuer, "is not https:// (or http:// to a loopback address) with a host")
        }
        var path = Array(bytes[pathStart...])
        while path.last == UInt8(ascii: "/") { path.removeLast() }
        let encodedPath = Self.percentEncodingNonASCII(path)
        let originText = String(decoding: origin, as: UTF8.self)
        openIDConfiguration = originText + encodedPath + "/.well-known/openid-configuration"
        authorizationServerMetadata = originText + "/.well-known/oauth-authorization-server" + encodedPath
    }

    /// Why `issuer` cannot be discovered, or `nil` when it can (for the command line's checks).
    package static func refusal(of issuer: String) -> DiscoveryRefusal? {
        do {
            _ = try DiscoveryLocations(issuer: issuer)
            return nil
        } catch {
            return error
        }
    }

    /// The first occurrence of `needle` in `haystack`.
    private static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }

    /// `path` as ASCII: each byte past ASCII as `%HH`, everything else unchanged.
    private static func percentEncodingNonASCII(_ path: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(path.count)
        for byte in path {
            if byte < 0x80 {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
