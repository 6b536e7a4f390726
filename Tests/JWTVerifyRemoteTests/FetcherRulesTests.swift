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
        ] as [(String?, Double?)])
    func cacheControl(header: String?, expected: Double?) {
        #expect(HTTPKeySetFetcher.maxAge(header) == expected)
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
