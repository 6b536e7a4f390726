import Dispatch
@testable import JWTVerify
import JWTVerifyTestSupport
import Synchronization
import Testing

/// Many threads verifying while the key set is replaced every few milliseconds and the origin flips
/// between healthy and failing: no crash and no wrong verdict.
@Suite("stress")
struct StressTests {
    /// A fetcher that serves A, A+B, or fails, in turn, on each request.
    final class FlippingFetcher: KeySetFetcher {
        private let count = Mutex(0)
        let documents = [
            "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}", "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}",
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
        let keySet = RemoteKeySet(url: "https://example.test/keys", fetcher: fetcher, policy: policy, clock: clock.function)
        let verifier = RemoteVerifier(keySet: keySet, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: clock.function)
        await keySet.load()
        let genuine = TokenFactory.token(payload: TokenFactory.claims(exp: "1800000000"))
        let forged = TokenFactory.token(header: #"{"kid":"rsa-a","alg":"RS256"}"#, payload: TokenFactory.claims(exp: "1800000000"), signer: TokenFactory.rsaB)
        let wrong = Counter()
        let verified = Counter()
        let stop = Mutex(false)
        let rotator = Task {
            while !stop.withLock({ $0 }) {
                clock.advance(61)  // past max-age: the next use refreshes (or serves stale on failure)
                try? await Task.sleep(nanoseconds: 3_000_000)
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var round = 0
                    let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        round += 1
                        let useForged = (worker + round) % 5 == 0
                        do {
                            _ = try verifier.verifyWithoutWaiting(useForged ? forged : genuine, at: TokenFactory.now)
                            if useForged { wrong.increment() } else { verified.increment() }
                        } catch {
                            if !useForged { wrong.increment() }
                        }
                    }
                }
            }
        }
        stop.withLock { $0 = true }
        rotator.cancel()
        #expect(wrong.value == 0)
        #expect(verified.value > 1000)
        #expect(fetcher.requests > 10)
        #expect(keySet.metrics.failures > 0)
    }
}
