import Dispatch
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// The batch entry point against the single-token one: the same verdict, reason, detail and
/// claims for every token of mixed batches, whatever its neighbours.
@Suite("batch verification")
struct BatchVerificationTests {
    /// A verdict as comparable text: the reason and detail, or the verified token's essentials.
    static func describe(_ result: Result<VerifiedToken, VerificationError>) -> String {
        switch result {
        case .success(let token):
            "valid \(token.algorithm.name) \(token.keyID ?? "-") \(String(decoding: token.payload, as: UTF8.self))"
        case .failure(let error): "\(error.reason.rawValue): \(error.detail)"
        }
    }

    /// Flips one base64url character near the end of `token` (its signature).
    static func forged(_ token: String) -> String {
        var bytes = Array(token.utf8)
        bytes[bytes.count - 3] = bytes[bytes.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// 400 tokens of every kind, shuffled by a seeded generator, with and without nonces.
    static func mixedTokens(seed: UInt64) throws -> [(token: String, nonce: String?)] {
        var random = SplitMix(state: seed)
        let foreign = TokenFactory.Signer(
            kid: "ec-a", algorithm: .es256, key: try EVPPrivateKey.generateEC(curve: "P-256"))
        let nonceHex = "b0a1d6f6e1c1d9d1ef45c2bc1f8d1e46a4cd0cfb70e9cd00a4c2fa8ce3b1d5e2"
        var cases: [(String, String?)] = []
        for n in 0..<400 {
            let claims = TokenFactory.claims(extra: #""n":"user-\#(n)""#)
            let token: (String, String?) =
                switch random.next() % 12 {
                case 0: (TokenFactory.token(payload: claims), nil)
                case 1: (TokenFactory.token(payload: claims, signer: TokenFactory.ec), nil)
                case 2: (forged(TokenFactory.token(payload: claims, signer: TokenFactory.ec)), nil)
                case 3: (forged(TokenFactory.token(payload: claims)), nil)
                case 4: (TokenFactory.token(payload: claims, signer: foreign), nil)
                case 5: (TokenFactory.token(payload: TokenFactory.claims(exp: "1600000000")), nil)
                case 6: (TokenFactory.unsignedToken(kid: "nope-\(n)"), nil)
                case 7: ("not.a.token-\(n)", nil)
                case 8: (String(repeating: "e", count: VerificationPolicy.defaultMaxTokenBytes + n), nil)
                case 9:
                    (
                        TokenFactory.token(
                            payload: TokenFactory.claims(extra: #""nonce":"\#(nonceHex)""#), signer: TokenFactory.ec),
                        "raw-\(n)"
                    )
                case 10: (TokenFactory.token(payload: claims, signer: TokenFactory.rsaB), "a nonce the token lacks")
                default: (TokenFactory.token(header: #"{"alg":"none"}"#, payload: claims), nil)
                }
            cases.append(token)
        }
        return cases
    }

    @Test(
        "every token of a mixed batch of 400 gets exactly its single-token verdict, with and without ES256 tables",
        arguments: [false, true])
    func differential(tables: Bool) throws {
        let verifier = TokenFactory.verifier()
        if tables { _ = verifier.keys.keys.first { $0.keyID == "ec-a" }?.key?.buildFixedBaseNow() }
        let cases = try Self.mixedTokens(seed: tables ? 7 : 8)
        var batch = TokenBatch()
        for (token, nonce) in cases { batch.append(token, nonce: nonce) }
        #expect(batch.count == cases.count)
        let batched = verifier.verify(batch, at: TokenFactory.now).map(Self.describe)
        let single = cases.map { token, nonce in
            Self.describe(
                Result { () throws(VerificationError) in try verifier.verify(token, nonce: nonce, at: TokenFactory.now)
                })
        }
        #expect(batched == single)
        #expect(Set(single.map { $0.split(separator: ":")[0] }).count >= 8)  // the mix covers many reasons
        var streamed: [String] = []
        verifier.verify(batch, at: TokenFactory.now) { index, result in
            #expect(index == streamed.count)
            streamed.append(Self.describe(result))
        }
        #expect(streamed == single)
    }

    @Test("a batch under a verified-token cache: repeats are hits and verdicts do not change")
    func cached() throws {
        let cached = Verifier(
            keys: TokenFactory.keys, policy: TokenFactory.verifier().policy, cache: .init(capacity: 64))
        let plain = TokenFactory.verifier()
        let tokens = (0..<10).map {
            TokenFactory.token(
                payload: TokenFactory.claims(extra: #""n":"u\#($0)""#),
                signer: $0 % 2 == 0 ? TokenFactory.rsa : TokenFactory.ec)
        }
        var batch = TokenBatch()
        // Repeats inside one chunk of the pipeline, adjacent and apart, and a forged one twice.
        for token in [tokens[0], tokens[0]] + tokens + tokens.reversed() + [
            Self.forged(tokens[0]), Self.forged(tokens[0]),
        ] {
            batch.append(token, nonce: nil)
        }
        let results = cached.verify(batch, at: TokenFactory.now).map(Self.describe)
        #expect(results == plain.verify(batch, at: TokenFactory.now).map(Self.describe))
        #expect(results.last?.hasPrefix("bad_signature") == true)
        let counters = try #require(cached.cache?.counters)
        // As a run of single calls counts: 10 distinct valid tokens, each verified once (10
        // misses) and every later sighting a hit (12); the forged token is never stored, so both
        // its sightings are misses.
        #expect(counters.insertions == 10)
        #expect(counters.hits == 12)
        #expect(counters.misses == 12)
    }

    @Test("a batch verified inside another batch's callback on the same thread gets its own workspace")
    func reentrant() {
        let verifier = TokenFactory.verifier()
        var outer = TokenBatch()
        var inner = TokenBatch()
        for n in 0..<3 {
            outer.append(
                TokenFactory.token(payload: TokenFactory.claims(extra: #""n":"o\#(n)""#), signer: TokenFactory.ec))
        }
        inner.append(TokenFactory.token(payload: TokenFactory.claims(extra: #""n":"inner""#)))
        var seen: [String] = []
        verifier.verify(outer, at: TokenFactory.now) { _, result in
            seen.append(Self.describe(result))
            seen.append(contentsOf: verifier.verify(inner, at: TokenFactory.now).map(Self.describe))
        }
        #expect(seen.count == 6)
        #expect(seen.allSatisfy { $0.hasPrefix("valid") })
        #expect(seen[0].contains("o0") && seen[1].contains("inner") && seen[4].contains("o2"))
    }

    @Test(
        "eight threads verifying batches of their own at once agree with one thread (the multi-buffer engine too, where loaded)"
    )
    func concurrent() throws {
        let verifier = TokenFactory.verifier()
        let cases = try Self.mixedTokens(seed: 9)
        var batch = TokenBatch()
        for (token, nonce) in cases { batch.append(token, nonce: nonce) }
        let expected = verifier.verify(batch, at: TokenFactory.now).map(Self.describe)
        let mismatches = Atomic<Int>(0)
        let shared = batch
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<3 where verifier.verify(shared, at: TokenFactory.now).map(Self.describe) != expected {
                mismatches.add(1, ordering: .relaxed)
            }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
    }

    @Test("the batch's own accessors: tokens and nonces come back as appended; removeAll empties it")
    func tokenBatch() {
        var batch = TokenBatch(minimumCapacity: 4, bytes: 64)
        #expect(batch.isEmpty && TokenFactory.verifier().verify(batch).isEmpty)
        batch.append("a.b.c", nonce: "n1")
        batch.append(Array("d.e.f".utf8))
        batch.append("", nonce: "")
        #expect(batch.count == 3)
        #expect(batch.token(at: 0) == Array("a.b.c".utf8) && batch.nonce(at: 0) == Array("n1".utf8))
        #expect(batch.token(at: 1) == Array("d.e.f".utf8) && batch.nonce(at: 1) == nil)
        #expect(batch.token(at: 2) == [] && batch.nonce(at: 2) == [])
        batch.removeAll()
        #expect(batch.isEmpty)
    }
}
