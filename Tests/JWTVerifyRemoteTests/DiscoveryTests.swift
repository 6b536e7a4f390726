import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Synchronization
import Testing

/// `RemoteKeySet.discovering(issuer:)` against a real issuer on 127.0.0.1: the document, its
/// checks, the fallback to RFC 8414, and the cache.
@Suite("key sets by discovery", .serialized)
struct DiscoveryTests {
    static let keyA = "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"
    static let both = "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}"
    static let patient = HTTPKeySetFetcher(connectTimeout: 10, totalTimeout: 20)
    static let oidc = "/.well-known/openid-configuration"
    static let rfc8414 = "/.well-known/oauth-authorization-server"

    /// A token of `issuer` (JSON-escaped as given) by `signer`.
    static func token(issuer: String, signer: TokenFactory.Signer = TokenFactory.rsa) -> String {
        TokenFactory.token(
            payload: #"{"iss":"\#(issuer)","aud":"com.example.app","exp":1700003600,"iat":1700000000,"sub":"s-1"}"#,
            signer: signer)
    }

    /// A clock starting at the test tokens' time.
    final class Clock: Sendable {
        private let value = Mutex(TokenFactory.now)
        var now: Double { value.withLock { $0 } }
        func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
    }

    /// A discovering key set for `issuer` and a verifier over it requiring that issuer.
    static func verifier(
        issuer: String, clock: Clock = Clock(), maximumDocumentBytes: Int = 64 * 1024
    ) -> (RemoteKeySet, RemoteVerifier) {
        let keySet = RemoteKeySet.discovering(
            issuer: issuer, fetcher: patient, maximumDocumentBytes: maximumDocumentBytes, clock: { clock.now })
        let policy = VerificationPolicy.generic(issuer: issuer, audiences: [TokenFactory.audience]).clock { clock.now }
        return (keySet, RemoteVerifier(keySet: keySet, policy: policy, refreshWait: 30))
    }

    /// The reason `verifier` refuses `token` with, or `nil` when it accepts it.
    static func reason(_ verifier: RemoteVerifier, _ token: String) async -> String? {
        do {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return error.reason.rawValue
        }
    }

    /// Waits (polling) until `condition` holds, for background refreshes; false after `seconds`.
    static func eventually(within seconds: Double = 15, _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return try condition()
    }

    @Test("the OpenID Connect document names the keys: a token of the issuer verifies, the document read once")
    func discoversKeys() async throws {
        let origin = try DiscoveryOrigin()
        try origin.serve([
            Self.oidc: .init(body: DiscoveryOrigin.document(issuer: origin.base, keys: origin.base + "/keys")),
            "/keys": .init(body: Self.keyA),
        ])
        let (keySet, verifier) = Self.verifier(issuer: origin.base)
        #expect(keySet.url == origin.base)
        let token = try await verifier.verify(Self.token(issuer: origin.base))
        #expect(token.claims.issuer == origin.base)
        #expect(token.claims.subject == "s-1")
        let hits = try origin.stats().hits
        #expect(hits == [Self.oidc: 1, "/keys": 1])
    }

    @Test(
        "the document is cached for its max-age and revalidated with its ETag; an unknown kid refetches the keys, not a current document"
    )
    func documentCached() async throws {
        let origin = try DiscoveryOrigin()
        let document = DiscoveryOrigin.document(issuer: origin.base, keys: origin.base + "/keys")
        try origin.serve([
            Self.oidc: .init(body: document, maxAge: 600, etag: "\"d1\""),
            "/keys": .init(body: Self.keyA, maxAge: 600, etag: "\"k1\""),
        ])
        let clock = Clock()
        let (keySet, verifier) = Self.verifier(issuer: origin.base, clock: clock)
        for _ in 0..<3 { _ = try await verifier.verify(Self.token(issuer: origin.base)) }
        #expect(try origin.stats().hits == [Self.oidc: 1, "/keys": 1])
        // A new key at the origin: a token naming it refreshes the keys once; the document is current.
        try origin.serve([
            Self.oidc: .init(body: document, maxAge: 600, etag: "\"d1\""),
            "/keys": .init(body: Self.both, maxAge: 600, etag: "\"k2\""),
        ])
        _ = try await verifier.verify(Self.token(issuer: origin.base, signer: TokenFactory.rsaB))
        #expect(try origin.stats().hits == [Self.oidc: 1, "/keys": 2])
        #expect(keySet.metrics.unknownKeyIDRefreshes == 1)
        // Past both lifetimes: the refresh revalidates the document, then the keys, each answered 304.
        clock.advance(700)
        _ = try await verifier.verify(Self.token(issuer: origin.base))
        #expect(await Self.eventually { keySet.metrics.notModified == 1 })
        let stats = try origin.stats()
        #expect(stats.hits == [Self.oidc: 2, "/keys": 3])
        // The unknown-kid refresh sent k1 (answered 200 with k2); the last refresh sent d1 and k2.
        #expect(stats.conditional == [Self.oidc: 1, "/keys": 2])
        #expect(stats.notModified == [Self.oidc: 1, "/keys": 1])
        #expect(keySet.isStale == false)
    }

    @Test("a document that moves the key set: the new jwks_uri is fetched without the old URL's validators")
    func movedKeySet() async throws {
        let origin = try DiscoveryOrigin()
        try origin.serve([
            Self.oidc: .init(
                body: DiscoveryOrigin.document(issuer: origin.base, keys: origin.base + "/keys"), maxAge: 60),
            "/keys": .init(body: Self.keyA, maxAge: 60, etag: "\"same\""),
        ])
        let clock = Clock()
        let (keySet, verifier) = Self.verifier(issuer: origin.base, clock: clock)
        _ = try await verifier.verify(Self.token(issuer: origin.base))
        try origin.serve([
            Self.oidc: .init(
                body: DiscoveryOrigin.document(issuer: origin.base, keys: origin.base + "/keys-2"), maxAge: 60),
            "/keys-2": .init(body: Self.both, maxAge: 60, etag: "\"same\""),
        ])
        clock.advance(70)
        await keySet.refreshIfDue()
        let stats = try origin.stats()
        #expect(stats.hits["/keys-2"] == 1)
        #expect(stats.conditional["/keys-2"] == nil)
        #expect(keySet.currentKeys()?.key(withID: TokenFactory.rsaB.kid) != nil, "\(keySet.lastFailure ?? "")")
    }

    @Test("RFC 8414's document is read when the OpenID Connect one answers 404 or 410", arguments: [404, 410])
    func fallback(status: Int) async throws {
        let origin = try DiscoveryOrigin()
        var routes: [String: DiscoveryOrigin.Answer] = [
            Self.rfc8414: .init(body: DiscoveryOrigin.document(issuer: origin.base, keys: origin.base + "/keys")),
            "/keys": .init(body: Self.keyA),
        ]
        if status == 410 { routes[Self.oidc] = .init(status: 410, body: "gone") }
        try origin.serve(routes)
        let (_, verifier) = Self.verifier(issuer: origin.base)
        #expect(await Self.reason(verifier, Self.token(issuer: origin.base)) == nil)
        #expect(try origin.stats().hits == [Self.oidc: 1, Self.rfc8414: 1, "/keys": 1])
    }

    @Test(
        "any other failure of the OpenID Connect document fails closed, without the fallback",
        arguments: [500, 503, 403, 401, 400])
    func noFallback(status: Int) async throws {
        let origin = try DiscoveryOrigin()
        try origin.serve([
            Self.oidc: .init(status: status, body: "no"),
            Self.rfc8414: .init(body: DiscoveryOrigin.document(issuer: origin.base, keys: origin.base + "/keys")),
            "/keys": .init(body: Self.keyA),
        ])
        let (keySet, verifier) = Self.verifier(issuer: origin.base)
        #expect(await Self.reason(verifier, Self.token(issuer: origin.base)) == "jwks_unavailable")
        #expect(try origin.stats().hits == [Self.oidc: 1])
        #expect(keySet.lastFailure == "no discovery document: \(origin.base + Self.oidc): HTTP status \(status)")
    }

    @Test("neither document: jwks_unavailable, the failure naming both URLs and their answers")
    func neither() async throws {
        let origin = try DiscoveryOrigin()
        try origin.serve(["/keys": .init(body: Self.keyA)])
        let (keySet, verifier) = Self.verifier(issuer: origin.base)
        #expect(await Self.reason(verifier, Self.token(issuer: origin.base)) == "jwks_unavailable")
        #expect(
            keySet.lastFailure
                == "no discovery document: \(origin.base + Self.oidc) answered 404; \(origin.base + Self.rfc8414) answered 404"
        )
        #expect(try origin.stats().hits["/keys"] == nil)
    }

    @Test(
        "an issuer with a path: OpenID Connect appends the well-known, RFC 8414 inserts it after the host",
        arguments: ["/tenant/one", "/tenant/"])
    func pathIssuer(path: String) async throws {
        let origin = try DiscoveryOrigin()
        let issuer = origin.base + path
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        let document = DiscoveryOrigin.document(issuer: issuer, keys: origin.base + "/keys")
        try origin.serve([trimmed + Self.oidc: .init(body: document), "/keys": .init(body: Self.keyA)])
        let (_, oidc) = Self.verifier(issuer: issuer)
        #expect(await Self.reason(oidc, Self.token(issuer: issuer)) == nil)
        #expect(try origin.stats().hits == [trimmed + Self.oidc: 1, "/keys": 1])

        let other = try DiscoveryOrigin()
        let otherIssuer = other.base + path
        try other.serve([
            Self.rfc8414 + trimmed: .init(
                body: DiscoveryOrigin.document(issuer: otherIssuer, keys: other.base + "/keys")),
            "/keys": .init(body: Self.keyA),
        ])
        let (_, metadata) = Self.verifier(issuer: otherIssuer)
        #expect(await Self.reason(metadata, Self.token(issuer: otherIssuer)) == nil)
        #expect(try other.stats().hits == [trimmed + Self.oidc: 1, Self.rfc8414 + trimmed: 1, "/keys": 1])
    }

    @Test("the well-known URLs of RFC 8414 §3.1's and OpenID Connect Discovery §4.1's examples, and of odd issuers")
    func locations() throws {
        let cases: [(String, String, String)] = [
            (
                "https://example.com/issuer1", "https://example.com/issuer1/.well-known/openid-configuration",
                "https://example.com/.well-known/oauth-authorization-server/issuer1"
            ),
            (
                "https://example.com", "https://example.com/.well-known/openid-configuration",
                "https://example.com/.well-known/oauth-authorization-server"
            ),
            (
                "https://example.com/", "https://example.com/.well-known/openid-configuration",
                "https://example.com/.well-known/oauth-authorization-server"
            ),
            (
                "https://example.com:8443/a/b/", "https://example.com:8443/a/b/.well-known/openid-configuration",
                "https://example.com:8443/.well-known/oauth-authorization-server/a/b"
            ),
            (
                "https://example.com/caf\u{e9}", "https://example.com/caf%C3%A9/.well-known/openid-configuration",
                "https://example.com/.well-known/oauth-authorization-server/caf%C3%A9"
            ),
            (
                "https://example.com/a//", "https://example.com/a/.well-known/openid-configuration",
                "https://example.com/.well-known/oauth-authorization-server/a"
            ),
            (
                "https://example.com//", "https://example.com/.well-known/openid-configuration",
                "https://example.com/.well-known/oauth-authorization-server"
            ),
            (
                "http://127.0.0.1:9/t", "http://127.0.0.1:9/t/.well-known/openid-configuration",
                "http://127.0.0.1:9/.well-known/oauth-authorization-server/t"
            ),
        ]
        for (issuer, oidc, metadata) in cases {
            let locations = try DiscoveryLocations(issuer: issuer)
            #expect(locations.openIDConfiguration == oidc)
            #expect(locations.authorizationServerMetadata == metadata)
        }
        for refused in [
            "http://example.com", "https://example.com?tenant=1", "https://example.com/#x", "https://", "example.com",
            "https://ex ample.com", "https://ex\u{e4}mple.com/", "ftp://example.com", "https://example.com/a\u{0}b", "",
        ] {
            #expect(DiscoveryLocations.refusal(of: refused) != nil, "\(refused) should be refused")
        }
    }

    @Test(
        "a document whose issuer is not the configured one byte for byte is refused, Unicode-equivalent spellings included"
    )
    func issuerMismatch() async throws {
        let precomposed = "/caf\u{e9}"
        let decomposed = "/cafe\u{301}"
        #expect(precomposed == decomposed)  // what Swift's String == would wrongly accept
        let origin = try DiscoveryOrigin()
        let issuer = origin.base + precomposed
        let location = "/caf%C3%A9" + Self.oidc
        // Escaped in the JSON, so no layer between can normalise them.
        let documents = [
            #"{"issuer":"\#(origin.base)/cafe\u0301","jwks_uri":"\#(origin.base)/keys"}"#,
            #"{"issuer":"\#(origin.base)/caf\u00e9/","jwks_uri":"\#(origin.base)/keys"}"#,
            #"{"issuer":"\#(origin.base)/CAF\u00c9","jwks_uri":"\#(origin.base)/keys"}"#,
            #"{"issuer":"\#(origin.base.replacingOccurrences(of: "127.0.0.1", with: "localhost"))/caf\u00e9","jwks_uri":"\#(origin.base)/keys"}"#,
            #"{"jwks_uri":"\#(origin.base)/keys"}"#,
            #"{"issuer":["\#(origin.base)/caf\u00e9"],"jwks_uri":"\#(origin.base)/keys"}"#,
        ]
        for document in documents {
            try origin.serve([location: .init(body: document), "/keys": .init(body: Self.keyA)])
            let (keySet, verifier) = Self.verifier(issuer: issuer)
            #expect(
                await Self.reason(verifier, Self.token(issuer: #"\#(origin.base)/caf\u00e9"#)) == "jwks_unavailable")
            #expect(keySet.lastFailure?.contains("issuer") == true, "\(keySet.lastFailure ?? "")")
        }
        #expect(try origin.stats().hits["/keys"] == nil)
        let (keySet, _) = Self.verifier(issuer: issuer)
        try origin.serve([location: .init(body: documents[0]), "/keys": .init(body: Self.keyA)])
        await keySet.load()
        #expect(
            keySet.lastFailure
                == #"discovery document's issuer "\#(origin.base)/cafe\xCC\x81" is not the configured issuer "\#(origin.base)/caf\xC3\xA9" (compared byte for byte)"#
        )
        // The control: the document naming the issuer's own bytes is accepted.
        let exact = #"{"issuer":"\#(origin.base)/caf\u00e9","jwks_uri":"\#(origin.base)/keys"}"#
        try origin.serve([location: .init(body: exact), "/keys": .init(body: Self.keyA)])
        let (_, verifier) = Self.verifier(issuer: issuer)
        #expect(await Self.reason(verifier, Self.token(issuer: #"\#(origin.base)/caf\u00e9"#)) == nil)
    }

    @Test("a jwks_uri that is not https (http only to loopback), not a URL, or not a string is refused")
    func keySetURLRefused() async throws {
        let origin = try DiscoveryOrigin()
        for uri in [
            #""http://keys.example.com/jwks""#, #""http://10.0.0.1/jwks""#, #""http://127.0.0.1.example.com/jwks""#,
            #""ftp://keys.example.com/jwks""#, #""/keys""#, #""https://keys.example.com/\u0000@127.0.0.1""#,
            #""https://keys.example.com/a b""#, #""""#, "42", "null",
        ] {
            try origin.serve([
                Self.oidc: .init(body: #"{"issuer":"\#(origin.base)","jwks_uri":\#(uri)}"#),
                "/keys": .init(body: Self.keyA),
            ])
            let (keySet, verifier) = Self.verifier(issuer: origin.base)
            #expect(await Self.reason(verifier, Self.token(issuer: origin.base)) == "jwks_unavailable")
            #expect(keySet.lastFailure?.contains("jwks_uri") == true, "\(uri): \(keySet.lastFailure ?? "")")
        }
        #expect(try origin.stats().hits["/keys"] == nil)
    }

    @Test("a document over its cap (decoded octets) is refused; the same document within it is accepted")
    func oversizedDocument() async throws {
        let origin = try DiscoveryOrigin()
        let padded =
            #"{"issuer":"\#(origin.base)","jwks_uri":"\#(origin.base)/keys","padding":""#
            + String(repeating: " ", count: 3000) + #""}"#
        try origin.serve([Self.oidc: .init(body: padded), "/keys": .init(body: Self.keyA)])
        let (small, smallVerifier) = Self.verifier(issuer: origin.base, maximumDocumentBytes: 2048)
        #expect(await Self.reason(smallVerifier, Self.token(issuer: origin.base)) == "jwks_unavailable")
        #expect(
            small.lastFailure == "no discovery document: \(origin.base + Self.oidc): body is over the 2048-octet limit")
        let (_, roomy) = Self.verifier(issuer: origin.base, maximumDocumentBytes: 4096)
        #expect(await Self.reason(roomy, Self.token(issuer: origin.base)) == nil)
        // The default cap, 64 KiB.
        try origin.serve([Self.oidc: .init(size: 70_000), "/keys": .init(body: Self.keyA)])
        let (large, _) = Self.verifier(issuer: origin.base)
        await large.load()
        #expect(large.lastFailure?.hasSuffix("body is over the 65536-octet limit") == true)
    }

    @Test("a document that is not a JSON object is refused by the JSON layer's strict rules")
    func documentShape() throws {
        let issuer = "https://id.example"
        let keys = "https://id.example/keys"
        let accepted = try DiscoveryDocument(
            json: Array(#"{"issuer":"\#(issuer)","jwks_uri":"\#(keys)"}"#.utf8), issuer: issuer)
        #expect(accepted.keySetURL == keys)
        for body in [
            "", "[]", "\"x\"", #"{"issuer":"\#(issuer)","jwks_uri":"\#(keys)"} x"#,
            #"{"issuer":"\#(issuer)","issuer":"\#(issuer)","jwks_uri":"\#(keys)"}"#,
            #"[{"issuer":"\#(issuer)","jwks_uri":"\#(keys)"}]"#,
        ] {
            #expect(throws: DiscoveryRefusal.self) { try DiscoveryDocument(json: Array(body.utf8), issuer: issuer) }
        }
        // Invalid UTF-8 inside the issuer.
        let invalid = Array(#"{"issuer":"https://id.example"#.utf8) + [0xC3] + Array(#"","jwks_uri":"\#(keys)"}"#.utf8)
        #expect(throws: DiscoveryRefusal.self) { try DiscoveryDocument(json: invalid, issuer: issuer) }
    }
}
