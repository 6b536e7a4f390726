import Dispatch
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

@Suite("concurrency")
struct ConcurrencyTests {
    @Test("one verifier shared by 8 threads gives every token its own verdict")
    func sharedVerifier() {
        let verifier = TokenFactory.verifier()
        let tokens: [(String, String?)] = [
            (TokenFactory.token(payload: TokenFactory.claims()), nil),
            (TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.ec), nil),
            (TokenFactory.token(payload: TokenFactory.claims(), signer: TokenFactory.rsaB), nil),
            (TokenFactory.token(payload: TokenFactory.claims(exp: "1")), "expired"),
            (
                TokenFactory.token(
                    header: #"{"kid":"rsa-a","alg":"RS256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.rsaB
                ), "bad_signature"
            ),
            (
                TokenFactory.token(
                    header: #"{"kid":"rsa-a","alg":"ES256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.ec),
                "key_alg_mismatch"
            ),
        ]
        let wrong = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<150 {
                let (token, expected) = tokens[(worker + round) % tokens.count]
                if TokenFactory.reason(token, verifier: verifier) != expected { wrong.increment() }
            }
        }
        #expect(wrong.value == 0)
    }
}

/// A thread-safe counter for tests.
final class Counter: @unchecked Sendable {
    private let lock = NSLockLike()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// A minimal lock over `Mutex`.
final class NSLockLike: Sendable {
    private let mutex = Mutex(())
    func withLock<T>(_ body: () -> T) -> T { mutex.withLock { _ in body() } }
}
