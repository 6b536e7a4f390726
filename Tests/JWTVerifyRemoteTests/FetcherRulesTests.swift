import Foundation
import Testing

@testable import JWTVerifyRemote

@Suite("HTTP fetcher rules")
struct FetcherRulesTests {
    @Test(
        "Cache-Control parsing",
        arguments: [
            ("public, max-age=600", 600.0 as Double?), ("max-age=\"30\", must-revalidate", 30), ("no-cache", 0),
            ("no-store, max-age=9", 0),
            ("private", nil), (nil, nil),
            // Optional whitespace is spaces and tabs (RFC 9110 §5.6.3); a no-break space is not.
            ("public,\tmax-age =\t120 ", 120), ("max-age=\u{A0}45", nil),
        ] as [(String?, Double?)])
    func cacheControl(header: String?, expected: Double?) {
        #expect(HTTPKeySetFetcher.maxAge(header) == expected)
    }

    @Test("field values lose leading and trailing spaces and tabs only; path segments are percent-encoded")
    func fieldTextAndEscapes() {
        #expect(HTTPFieldText.trimmed(" \t 7\t ") == "7")
        #expect(HTTPFieldText.trimmed("\u{A0}7 ") == "\u{A0}7")
        #expect(HTTPFieldText.trimmed(" \t ") == "")
        #expect(HTTPFieldText.trimmed("\"60\"") { $0 == "\"" } == "60")
        #expect(AppStoreServerClient.escaped("a b/ü~-._Z9") == "a%20b%2F%C3%BC~-._Z9")
    }

    @Test("schemes and redirects: https anywhere, http only on loopback, never https to http")
    func schemes() {
        #expect(HTTPKeySetFetcher.isAllowed(URL(string: "https://appleid.apple.com/auth/keys")!))
        #expect(HTTPKeySetFetcher.isAllowed(URL(string: "http://127.0.0.1:8080/keys")!))
        #expect(!HTTPKeySetFetcher.isAllowed(URL(string: "http://appleid.apple.com/auth/keys")!))
        #expect(!HTTPKeySetFetcher.isAllowed(URL(string: "file:///etc/passwd")!))
        #expect(
            !HTTPKeySetFetcher.mayRedirect(
                from: URL(string: "https://a.example/k"), to: URL(string: "http://127.0.0.1/k")))
        #expect(
            HTTPKeySetFetcher.mayRedirect(
                from: URL(string: "https://a.example/k"), to: URL(string: "https://b.example/k")))
    }
}
