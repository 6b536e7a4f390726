import Dispatch
import Foundation
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// Many threads verifying while the key set is replaced every few milliseconds and the origin flips
/// between healthy and failing: no crash and no wrong verdict.
@Suite("stress")
struct StressTests {
    /// A fetcher that serves A, A+B, or fails, in turn, on each request.
    final class FlippingFetcher: KeySetFetcher {
        private let count = Mutex(0)
        let documents = [
            "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}",
            "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}",
        ]
        var requests: Int { count.withLock { $0 } }
        func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult {
            let n = count.withLock { value -> Int in
                value += 1
                return value
            }
            if n % 3 == 0 { return .failed("origin flipped to failing") }
            return .document(body: Array(documents[n % 2].utf8), maxAge: 60, etag: nil, lastModified: nil)
        }
    }

    @Test("16 threads verify for a second while keys rotate every few ms and the origin flips")
    func rotatingKeys() async throws {
        let clock = TestClock(TokenFactory.now)
        let fetcher = FlippingFetcher()
        var policy = KeyCachePolicy()
        policy.retryAfterFailure = 0
        let keySet = RemoteKeySet(
            url: "https://example.test/keys", fetcher: fetcher, policy: policy, clock: clock.function)
        let verifier = RemoteVerifier(
            keySet: keySet,
            policy: VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]).clock(
                clock.function))
        await keySet.load()
        let genuine = TokenFactory.token(payload: TokenFactory.claims(exp: "1800000000"))
        let forged = TokenFactory.token(
            header: #"{"kid":"rsa-a","alg":"RS256"}"#, payload: TokenFactory.claims(exp: "1800000000"),
            signer: TokenFactory.rsaB)
        let wrong = Counter()
        let verified = Counter()
        // 16 real threads (not tasks: synchronous verification would starve the cooperative pool that
        // runs the background refreshes). Thread 0 also moves the clock past max-age every 3 ms.
        let done = DispatchGroup()
        for worker in 0..<16 {
            done.enter()
            let thread = Thread {
                var round = 0
                var lastAdvance = DispatchTime.now().uptimeNanoseconds
                let deadline = lastAdvance + 1_000_000_000
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    round += 1
                    if worker == 0, DispatchTime.now().uptimeNanoseconds - lastAdvance > 3_000_000 {
                        clock.advance(61)
                        lastAdvance = DispatchTime.now().uptimeNanoseconds
                    }
                    let useForged = (worker + round) % 5 == 0
                    do {
                        _ = try verifier.verifyWithoutWaiting(useForged ? forged : genuine, at: TokenFactory.now)
                        if useForged { wrong.increment() } else { verified.increment() }
                    } catch {
                        if !useForged { wrong.increment() }
                    }
                }
                done.leave()
            }
            thread.start()
        }
        await withCheckedContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
        #expect(wrong.value == 0)
        #expect(verified.value > 1000)
        // The refreshes run as tasks: when the rest of a parallel suite holds the cooperative pool
        // for the whole window, they run only now. Keep the keys due (and asked for) until the
        // third fetch has been made, or ten seconds pass.
        for _ in 0..<100 where fetcher.requests < 3 || keySet.metrics.failures == 0 {
            clock.advance(61)
            _ = keySet.currentKeys()
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(fetcher.requests >= 3)  // the load, a replacement, and a failed fetch (the third)
        #expect(keySet.metrics.failures > 0)
    }
}
