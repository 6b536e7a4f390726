import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Synchronization
import Testing

/// A key origin that answers its first fetch at once, and every later one only after `delay`.
final class SlowAfterFirstFetcher: KeySetFetcher {
    let first: String
    let later: String
    let delay: UInt64
    let fetches = Atomic(0)
    /// Fetches that have answered.
    let answered = Atomic(0)

    init(first: String, later: String, delayMilliseconds: UInt64) {
        self.first = first
        self.later = later
        self.delay = delayMilliseconds
    }

    func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult {
        let count = fetches.add(1, ordering: .relaxed).newValue
        if count > 1 { try? await Task.sleep(nanoseconds: delay * 1_000_000) }
        defer { answered.add(1, ordering: .relaxed) }
        return .document(
            body: Array((count > 1 ? later : first).utf8), maxAge: 600, etag: "\"v\(count)\"", lastModified: nil)
    }
}

/// ``RemoteVerifier``'s one wait is bounded: a token naming a `kid` the keys lack waits at most
/// `refreshWait` for the refresh it starts, which goes on in the background.
@Suite("remote verifier: the refresh wait is bounded")
struct RemoteVerifierWaitTests {
    static let oneKey = "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"
    static let both = "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}"

    static func verifier(_ fetcher: SlowAfterFirstFetcher, wait: Double) -> RemoteVerifier {
        let keySet = RemoteKeySet(url: "https://example.test/keys", fetcher: fetcher)
        return RemoteVerifier(
            keySet: keySet,
            policy: VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]),
            refreshWait: wait)
    }

    @Test(
        "a slow refresh: jwks_unavailable after the wait, not after the fetch; the key verifies once the fetch is done")
    func slowRefresh() async throws {
        let fetcher = SlowAfterFirstFetcher(first: Self.oneKey, later: Self.both, delayMilliseconds: 8000)
        let verifier = Self.verifier(fetcher, wait: 0.25)
        await verifier.keySet.load()
        let rotated = TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.rsaB)
        let start = Date()
        do {
            _ = try await verifier.verify(rotated, at: TokenFactory.now)
            Issue.record("verified before the refresh ended")
        } catch {
            #expect(error.reason == .keySetUnavailable)
            #expect(error.detail.contains("still running after 0.25 s"), "\(error.detail)")
        }
        // It stopped waiting while the fetch still ran: the refresh's own answer had not come.
        let waited = Date().timeIntervalSince(start)
        #expect(fetcher.answered.load(ordering: .relaxed) == 1, "the caller waited for the 8 s fetch (\(waited) s)")
        #expect(waited >= 0.2, "waited \(waited) s")
        // The refresh went on in the background: once it is done, the rotated-in key verifies.
        for _ in 0..<300 where (try? verifier.verifyWithoutWaiting(rotated, at: TokenFactory.now)) == nil {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(try await verifier.verify(rotated, at: TokenFactory.now).keyID == TokenFactory.rsaB.kid)
        #expect(fetcher.fetches.load(ordering: .relaxed) == 2)
    }

    @Test("a batch: the tokens naming the unknown kid are jwks_unavailable after the wait, the others verified")
    func batch() async throws {
        let fetcher = SlowAfterFirstFetcher(first: Self.oneKey, later: Self.both, delayMilliseconds: 3000)
        let verifier = Self.verifier(fetcher, wait: 0.1)
        await verifier.keySet.load()
        var batch = TokenBatch()
        batch.append(TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.rsa))
        batch.append(TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.rsaB))
        let results = await verifier.verify(batch, at: TokenFactory.now)
        #expect((try? results[0].get())?.keyID == TokenFactory.rsa.kid)
        guard case .failure(let error) = results[1] else {
            Issue.record("the unknown kid verified")
            return
        }
        #expect(error.reason == .keySetUnavailable)
    }

    @Test("refreshWait 0 never waits; within the cooldown an unknown kid is unknown_kid at once")
    func noWait() async throws {
        let fetcher = SlowAfterFirstFetcher(first: Self.oneKey, later: Self.oneKey, delayMilliseconds: 10)
        let verifier = Self.verifier(fetcher, wait: 0)
        await verifier.keySet.load()
        let stranger = TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.rsaB)
        await #expect(throws: VerificationError.self) { _ = try await verifier.verify(stranger, at: TokenFactory.now) }
        // Once the refresh has ended (without the key), the cooldown holds: unknown_kid at once,
        // and no other fetch.
        var reason: VerificationError.Reason?
        for _ in 0..<100 where reason != .unknownKeyID {
            try await Task.sleep(nanoseconds: 50_000_000)
            do {
                _ = try await verifier.verify(stranger, at: TokenFactory.now)
            } catch {
                reason = error.reason
            }
        }
        #expect(reason == .unknownKeyID)
        #expect(fetcher.fetches.load(ordering: .relaxed) == 2)
    }
}
