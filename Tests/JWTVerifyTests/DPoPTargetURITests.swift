import Testing

@testable import JWTVerify

/// The `htu` normaliser (RFC 3986 §6.2.2–6.2.3, RFC 9449 §4.3): each row's URI and what it
/// normalises to, or `nil` when it is no target.
@Suite("DPoP target URIs")
struct DPoPTargetURITests {
    static let table: [(String, String?)] = [
        // Unchanged.
        ("https://api.example.com/orders", "https://api.example.com/orders"),
        // Case of scheme and host; the path's case is kept.
        ("HTTPS://API.Example.COM/Orders", "https://api.example.com/Orders"),
        // Default ports left out, others kept (leading zeros dropped); an empty port left out.
        ("https://api.example.com:443/a", "https://api.example.com/a"),
        ("http://api.example.com:80/a", "http://api.example.com/a"),
        ("https://api.example.com:80/a", "https://api.example.com:80/a"),
        ("https://api.example.com:0443/a", "https://api.example.com/a"),
        ("https://api.example.com:8443/a", "https://api.example.com:8443/a"),
        ("https://api.example.com:/a", "https://api.example.com/a"),
        // An empty path is "/".
        ("https://api.example.com", "https://api.example.com/"),
        ("https://api.example.com:443", "https://api.example.com/"),
        // Dot segments.
        ("https://h/a/./b/../c", "https://h/a/c"),
        ("https://h/a/b/../../../c", "https://h/c"),
        ("https://h/a/..", "https://h/"),
        ("https://h/a/.", "https://h/a/"),
        // Percent-encoding: hex in uppercase, unreserved characters decoded, others kept.
        ("https://h/%7euser/%2fx", "https://h/~user/%2Fx"),
        ("https://h/%41%62%2D%5F%2E", "https://h/Ab-_."),
        ("https://h/a/%2E%2E/b", "https://h/b"),
        ("https://%41pi.example.com/", "https://api.example.com/"),
        ("https://h/a%20b", "https://h/a%20b"),
        // Query and fragment dropped.
        ("https://h/orders?page=2", "https://h/orders"),
        ("https://h/orders#top", "https://h/orders"),
        ("https://h?x", "https://h/"),
        ("https://h/a?b/../c#d", "https://h/a"),
        // IP literals, userinfo.
        ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"),
        ("https://User@H/x", "https://User@h/x"),
        // Not targets.
        ("/orders", nil), ("api.example.com/orders", nil), ("https:/h/x", nil), ("https://", nil),
        ("https://h:99999/", nil), ("https://h:8x/", nil), ("https://h/a%2", nil), ("https://h/a%zz", nil),
        ("https://h/a b", nil), ("https://h/\u{e9}", nil), ("https://h/a|b", nil), ("1https://h/", nil),
        ("https://[::1/", nil),
    ]

    @Test("the normalisation table: case, default ports, dot segments, percent-encoding, query and fragment")
    func table() {
        for (uri, expected) in Self.table {
            #expect(DPoPTargetURI(uri)?.description == expected, "\(uri)")
        }
    }

    @Test("normalised URIs normalise to themselves, and equal ones compare equal as bytes")
    func idempotent() {
        for case (_, let normalised?) in Self.table {
            #expect(DPoPTargetURI(normalised)?.description == normalised)
        }
        #expect(DPoPTargetURI("HTTPS://H:443/a/./%62")?.bytes == DPoPTargetURI("https://h/a/b?q")?.bytes)
    }

    @Test("RFC 3986 §5.4's dot-segment examples")
    func dotSegments() {
        let cases = [
            ("/a/b/c/./../../g", "/a/g"), ("mid/content=5/../6", "mid/6"), ("/./a", "/a"), ("/../a", "/a"),
            ("/a/b/..", "/a/"), ("/a//b", "/a//b"),
        ]
        for (path, expected) in cases {
            #expect(
                String(decoding: DPoPTargetURI.removingDotSegments(Array(path.utf8)), as: UTF8.self) == expected,
                "\(path)")
        }
    }
}
