import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Synchronization
import Testing

/// The URLSession fetcher and the cache against a real HTTP origin on 127.0.0.1.
@Suite("remote key sets over HTTP", .serialized)
struct HTTPKeySetTests {
    static let keyA = "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"
    static let keyB = "{\"keys\":[\(TokenFactory.rsaB.jwkJSON)]}"
    static let both = "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}"
    /// Short timeouts, for the tests of failing origins.
    static let fast = HTTPKeySetFetcher(connectTimeout: 1, totalTimeout: 1.5)
    /// Generous timeouts for everything else (the test machine may be busy with other suites).
    static let patient = HTTPKeySetFetcher(connectTimeout: 10, totalTimeout: 20)

    static func token(_ signer: TokenFactory.Signer, kid: String? = nil) -> String {
        TokenFactory.token(
            header: #"{"kid":"\#(kid ?? signer.kid)","alg":"RS256"}"#, payload: TokenFactory.claims(exp: "1700090000"),
            signer: signer)
    }

    /// A clock starting at the test tokens' time.
    final class Clock: Sendable {
        private let value = Mutex(TokenFactory.now)
        var now: Double { value.withLock { $0 } }
        func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
    }

    /// Waits (polling) until `condition` holds, for background refreshes; false after `seconds`.
    static func eventually(within seconds: Double = 15, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }

    static func setUp(_ settings: [String: Any], fetcher: HTTPKeySetFetcher = patient) throws -> (
        OriginServer, RemoteKeySet, RemoteVerifier, Clock
    ) {
        let origin = try OriginServer()
        try origin.set(settings)
        let clock = Clock()
        let keySet = RemoteKeySet(url: origin.keysURL, fetcher: fetcher, clock: { clock.now })
        // A long wait for a refresh: these tests are about what the origin's answers do to the
        // keys (rotation, cooldowns), and a loaded machine's loopback fetch may take over the
        // default 0.25 s (the bounded wait itself is RemoteVerifierWaitTests').
        let verifier = RemoteVerifier(
            keySet: keySet,
            policy: VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]).clock {
                clock.now
            }, refreshWait: 30)
        return (origin, keySet, verifier, clock)
    }

    @Test("Cache-Control max-age and ETag are honoured; expiry revalidates with If-None-Match and a 304 keeps the keys")
    func cachingHeaders() async throws {
        let (origin, keySet, verifier, clock) = try Self.setUp([
            "document": Self.keyA, "max_age": 300, "etag": "\"a1\"",
        ])
        _ = try await verifier.verify(Self.token(TokenFactory.rsa))
        let validity = try #require(keySet.validity)
        #expect(validity.expiresAt - validity.fetchedAt == 300)
        clock.advance(250)  // past the refresh-ahead point (80%)
        _ = try await verifier.verify(Self.token(TokenFactory.rsa))
        #expect(await Self.eventually { keySet.metrics.notModified == 1 })
        let stats = try origin.stats()
        #expect(stats.requests == 2)
        #expect(stats.conditional == 1)
        #expect(stats.ifModifiedSince == 1)
        #expect(stats.notModified == 1)
        #expect(keySet.metrics.notModified == 1)
        #expect(keySet.validity?.fetchedAt == clock.now)
    }

    @Test("max-age is clamped; no Cache-Control gives the default lifetime")
    func clamping() async throws {
        for (settings, lifetime) in [
            (["document": Self.keyA, "max_age": 5] as [String: Any], 60.0),
            (["document": Self.keyA, "max_age": 10_000_000], 86_400),
            (["document": Self.keyA, "mode": "no_cache"], 3_600),
        ] {
            let (origin, keySet, _, _) = try Self.setUp(settings)
            await keySet.load()
            let validity = try #require(keySet.validity, "\(keySet.lastFailure ?? "")")
            #expect(validity.expiresAt - validity.fetchedAt == lifetime)
            withExtendedLifetime(origin) {}
        }
    }

    @Test(
        "origin failures keep the old keys verifying, marked stale",
        arguments: ["hang", "close", "error", "garbage", "empty", "huge"])
    func failuresKeepKeys(mode: String) async throws {
        let (origin, keySet, verifier, clock) = try Self.setUp(
            ["document": Self.keyA, "max_age": 600], fetcher: Self.fast)
        _ = try await verifier.verify(Self.token(TokenFactory.rsa))
        try origin.set(["mode": mode])
        clock.advance(700)
        let started = Date()
        _ = try await verifier.verify(Self.token(TokenFactory.rsa))  // stale keys, refresh in the background
        #expect(Date().timeIntervalSince(started) < 1)  // the caller never waits on a routine refresh
        #expect(await Self.eventually { keySet.metrics.failures == 1 })  // the background fetch fails
        _ = try await verifier.verify(Self.token(TokenFactory.rsa))
        #expect(keySet.metrics.failures == 1, "\(keySet.lastFailure ?? "")")
        #expect(keySet.metrics.staleServes >= 2)
        #expect(keySet.currentKeys()?.key(withID: "rsa-a") != nil)
        if mode == "huge" { #expect(keySet.lastFailure?.contains("limit") == true) }
        if mode == "error" { #expect(keySet.lastFailure?.contains("500") == true) }
    }

    @Test("a refused connection is a fast failure: jwks_unavailable with no keys at all")
    func refused() async throws {
        let keySet = RemoteKeySet(url: "http://127.0.0.1:9/keys", fetcher: Self.fast)
        let verifier = RemoteVerifier(
            keySet: keySet, policy: .generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]))
        let started = Date()
        await #expect(throws: VerificationError(.keySetUnavailable)) {
            try await verifier.verify(Self.token(TokenFactory.rsa))
        }
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(keySet.metrics.failures == 1)
    }

    @Test("rotation: a new kid triggers one refresh and verifies; the retired kid is then unknown")
    func rotation() async throws {
        let (origin, _, verifier, _) = try Self.setUp(["document": Self.keyA, "etag": "\"a\""])
        _ = try await verifier.verify(Self.token(TokenFactory.rsa))
        try origin.set(["document": Self.keyB, "etag": "\"b\""])
        let verified = try await verifier.verify(Self.token(TokenFactory.rsaB))
        #expect(verified.keyID == "rsa-b")
        #expect(try origin.stats().requests == 2)
        await #expect(throws: VerificationError(.unknownKeyID)) {
            try await verifier.verify(Self.token(TokenFactory.rsa))
        }
    }

    @Test("10,000 tokens with random unknown kids: one fetch per cooldown window")
    func unknownKidFlood() async throws {
        let (origin, keySet, verifier, _) = try Self.setUp(["document": Self.keyA])
        await keySet.load()
        for index in 0..<10_000 {
            await #expect(throws: VerificationError(.unknownKeyID)) {
                try await verifier.verify(TokenFactory.unsignedToken(kid: "kid-\(index)"))
            }
        }
        #expect(try origin.stats().requests == 2)
        #expect(keySet.metrics.cooldownHits == 9_999)
    }

    @Test("16 threads verifying during a rotation: exactly one fetch for the new key")
    func concurrentRotation() async throws {
        let (origin, keySet, verifier, _) = try Self.setUp(["document": Self.keyA, "etag": "\"a\""])
        await keySet.load()
        try origin.set(["document": Self.both, "etag": "\"ab\""])
        let failures = Mutex(0)
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<25 {
                        let signer = (worker + round) % 2 == 0 ? TokenFactory.rsaB : TokenFactory.rsa
                        if (try? await verifier.verify(Self.token(signer)))?.keyID != signer.kid { wrong += 1 }
                    }
                    return wrong
                }
            }
            for await wrong in group { failures.withLock { $0 += wrong } }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try origin.stats().requests == 2)
    }

    @Test("redirects are followed within the limit; loops are refused; https never goes to http")
    func redirects() async throws {
        let origin = try OriginServer()
        try origin.set(["document": Self.keyA])
        guard
            case .document(let body, _, _, _) = await Self.patient.fetch(
                origin.url("/redirect"), etag: nil, lastModified: nil)
        else {
            Issue.record("redirect not followed")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == Self.keyA)
        guard case .failed(let loop) = await Self.patient.fetch(origin.url("/loop"), etag: nil, lastModified: nil)
        else {
            Issue.record("redirect loop followed")
            return
        }
        #expect(loop.contains("redirects"))
        guard case .failed(let scheme) = await Self.fast.fetch("http://example.com/keys", etag: nil, lastModified: nil)
        else {
            Issue.record("plain http off loopback fetched")
            return
        }
        #expect(scheme.contains("only https"))
    }
}
