import Dispatch
import Foundation
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// A fetcher whose answers the test scripts, counting requests; it can delay each answer.
final class ScriptedFetcher: KeySetFetcher {
    private let state = Mutex<(document: [UInt8]?, failing: Bool, requests: Int, conditional: Int, version: Int)>(
        (nil, false, 0, 0, 0))
    let delay: UInt64

    init(document: String?, delayMilliseconds: UInt64 = 0) {
        state.withLock { $0.document = document.map { Array($0.utf8) } }
        delay = delayMilliseconds
    }

    func serve(_ document: String) {
        state.withLock {
            $0.document = Array(document.utf8)
            $0.failing = false
            $0.version += 1
        }
    }
    func fail() { state.withLock { $0.failing = true } }
    var requests: Int { state.withLock { $0.requests } }
    var conditionalRequests: Int { state.withLock { $0.conditional } }

    func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult {
        if delay > 0 { try? await Task.sleep(nanoseconds: delay * 1_000_000) }
        return state.withLock { state in
            state.requests += 1
            if etag != nil { state.conditional += 1 }
            if state.failing { return .failed("origin down") }
            guard let document = state.document else { return .failed("no document") }
            let tag = "\"v\(state.version)\""
            if etag == tag { return .notModified(maxAge: 600) }
            return .document(body: document, maxAge: 600, etag: tag, lastModified: nil)
        }
    }
}

@Suite("remote key sets")
struct RemoteKeySetTests {
    static let oneKey = "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"
    static let rotated = "{\"keys\":[\(TokenFactory.rsaB.jwkJSON)]}"
    static let both = "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}"

    static func token(_ signer: TokenFactory.Signer = TokenFactory.rsa, kid: String? = nil) -> String {
        TokenFactory.token(
            header: #"{"kid":"\#(kid ?? signer.kid)","alg":"RS256"}"#, payload: TokenFactory.claims(exp: "1700090000"),
            signer: signer)
    }

    /// A key set at a scripted origin serving ``oneKey``, read at a test clock at ``TokenFactory/now``,
    /// and a verifier over it.
    static func fixture(
        delayMilliseconds: UInt64 = 0
    ) -> (clock: TestClock, fetcher: ScriptedFetcher, keySet: RemoteKeySet, verifier: RemoteVerifier) {
        let clock = TestClock(TokenFactory.now)
        let fetcher = ScriptedFetcher(document: oneKey, delayMilliseconds: delayMilliseconds)
        let keySet = RemoteKeySet(url: "https://example.test/keys", fetcher: fetcher, clock: clock.function)
        // A long wait for the refresh: these tests are about single flight and cooldowns, not the wait.
        let policy = VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])
        let verifier = RemoteVerifier(keySet: keySet, policy: policy.clock(clock.function), refreshWait: 30)
        return (clock, fetcher, keySet, verifier)
    }

    @Test("first use loads the keys; routine use does not fetch again")
    func loadOnce() async throws {
        let (_, fetcher, keySet, verifier) = Self.fixture()
        for _ in 0..<50 { _ = try await verifier.verify(Self.token()) }
        #expect(fetcher.requests == 1)
        #expect(keySet.metrics.currentKeyIDs == ["rsa-a"])
    }

    @Test("10,000 tokens with random unknown kids cost one fetch per cooldown window and fail fast")
    func unknownKidFlood() async throws {
        let (clock, fetcher, keySet, verifier) = Self.fixture()
        await keySet.load()
        var rejected = 0
        for index in 0..<10_000 {
            do {
                _ = try await verifier.verify(TokenFactory.unsignedToken(kid: "random-\(index)"))
            } catch {
                if error.reason == .unknownKeyID { rejected += 1 }
            }
            if index == 5_000 { clock.advance(31) }  // a second cooldown window
        }
        #expect(rejected == 10_000)
        #expect(fetcher.requests == 3)  // the load, then one per window
        #expect(keySet.metrics.unknownKeyIDRefreshes == 2)
        #expect(keySet.metrics.cooldownHits == 9_998)
    }

    @Test("rotation: the first token with the new kid triggers one refresh and verifies")
    func rotation() async throws {
        let (_, fetcher, _, verifier) = Self.fixture()
        _ = try await verifier.verify(Self.token())
        fetcher.serve(Self.rotated)
        let verified = try await verifier.verify(Self.token(TokenFactory.rsaB))
        #expect(verified.keyID == "rsa-b")
        #expect(fetcher.requests == 2)
        await #expect(throws: VerificationError(.unknownKeyID)) { try await verifier.verify(Self.token()) }
    }

    @Test("origin down: old keys keep verifying, marked stale, until the stale window ends")
    func staleIfError() async throws {
        let (clock, fetcher, keySet, verifier) = Self.fixture()
        _ = try await verifier.verify(Self.token(), at: TokenFactory.now)
        fetcher.fail()
        clock.advance(700)  // past max-age 600
        _ = try await verifier.verify(Self.token(), at: TokenFactory.now)
        for _ in 0..<500 where keySet.metrics.failures == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        _ = try await verifier.verify(Self.token(), at: TokenFactory.now)
        #expect(keySet.metrics.staleServes >= 2)
        #expect(keySet.metrics.failures >= 1)
        #expect(keySet.lastFailure == "origin down")
        clock.advance(86_400)
        await #expect(throws: VerificationError(.keySetUnavailable)) {
            try await verifier.verify(Self.token(), at: TokenFactory.now)
        }
    }

    @Test("an empty or unparsable document never replaces good keys")
    func badDocuments() async throws {
        let (clock, fetcher, keySet, _) = Self.fixture()
        await keySet.load()
        for bad in [#"{"keys":[]}"#, "<html>oops</html>", ""] {
            fetcher.serve(bad)
            clock.advance(700)
            let failuresBefore = keySet.metrics.failures
            _ = keySet.currentKeys()
            for _ in 0..<500 where keySet.metrics.failures == failuresBefore {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(keySet.currentKeys()?.key(withID: "rsa-a") != nil)
            clock.advance(31)
        }
        #expect(keySet.metrics.failures == 3)
    }

    @Test("16 threads verifying during a rotation: exactly one fetch for the new key, no wrong verdict")
    func concurrentRotation() async throws {
        let (_, fetcher, keySet, verifier) = Self.fixture(delayMilliseconds: 50)
        await keySet.load()
        fetcher.serve(Self.both)
        let wrong = Counter()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    for round in 0..<40 {
                        let signer = (worker + round) % 2 == 0 ? TokenFactory.rsa : TokenFactory.rsaB
                        do {
                            let verified = try await verifier.verify(Self.token(signer))
                            if verified.keyID != signer.kid { wrong.increment() }
                        } catch {
                            wrong.increment()
                        }
                    }
                }
            }
        }
        #expect(wrong.value == 0)
        #expect(fetcher.requests == 2)
    }

    @Test("a snapshot on disk gives a restarted service its keys before any fetch; 304s revalidate it")
    func snapshot() async throws {
        let workspace = try TestWorkspace("snap", withKeys: false)
        let directory = workspace.directory.path
        let clock = TestClock(TokenFactory.now)
        let fetcher = ScriptedFetcher(document: Self.oneKey)
        let first = RemoteKeySet(
            url: "https://example.test/keys", fetcher: fetcher, snapshotDirectory: directory, clock: clock.function)
        await first.load()
        let down = ScriptedFetcher(document: nil)
        down.fail()
        let restarted = RemoteKeySet(
            url: "https://example.test/keys", fetcher: down, snapshotDirectory: directory, clock: clock.function)
        #expect(restarted.currentKeys()?.key(withID: "rsa-a") != nil)
        #expect(down.requests == 0)
        let other = RemoteKeySet(
            url: "https://example.test/other", fetcher: down, snapshotDirectory: directory, clock: clock.function)
        #expect(other.currentKeys() == nil)
        // Past expiry, a conditional request is answered 304 and the keys live on.
        clock.advance(700)
        let revalidating = RemoteKeySet(
            url: "https://example.test/keys", fetcher: fetcher, snapshotDirectory: directory, clock: clock.function)
        _ = revalidating.currentKeys()
        for _ in 0..<500 where revalidating.metrics.notModified == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(fetcher.conditionalRequests == 1)
        #expect(revalidating.metrics.notModified == 1)
        #expect(revalidating.validity?.expiresAt == clock.now + 600)
    }
}
