import Dispatch
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// The verified-token cache: what a hit may skip, and everything it must check again.
@Suite("verified-token cache")
struct VerifiedTokenCacheTests {
    /// A clock the test moves.
    static let policy = VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])

    static func cached(_ clock: TestClock, policy: VerificationPolicy = policy, keys: JWKSet = TokenFactory.keys)
        -> Verifier
    {
        Verifier(keys: keys, policy: policy.clock(clock.function), cache: .init(capacity: 64))
    }

    static func reason(_ verifier: Verifier, _ token: String, nonce: String? = nil) -> String {
        TokenFactory.reason(token, nonce: nonce, verifier: verifier) ?? "valid"
    }

    @Test("a hit skips the signature: the second verification is served from the cache")
    func hit() throws {
        let verifier = Self.cached(TestClock(TokenFactory.now))
        let token = TokenFactory.token(payload: TokenFactory.claims())
        let first = try verifier.verify(token)
        let second = try verifier.verify(token)
        #expect(first.claims == second.claims)
        #expect(first.payload == second.payload)
        let counters = try #require(verifier.cache?.counters)
        #expect(counters.hits == 1 && counters.misses == 1 && counters.insertions == 1 && counters.entries == 1)
    }

    @Test("a cached token expires on time, and is not yet valid or issued in the future when the clock goes back")
    func timeRunsAgain() throws {
        let clock = TestClock(1_700_000_100)
        let verifier = Self.cached(clock)
        let token = TokenFactory.token(
            payload: TokenFactory.claims(exp: "1700003600", iat: "1700000000", extra: #""nbf":1700000050"#))
        #expect(Self.reason(verifier, token) == "valid")
        clock.set(1_700_003_600 + 59)  // within the 60 s leeway
        #expect(Self.reason(verifier, token) == "valid")
        clock.set(1_700_003_600 + 60)
        #expect(Self.reason(verifier, token) == "expired")
        clock.set(1_700_000_050 - 61)  // nbf beyond the leeway (iat still within it)
        #expect(Self.reason(verifier, token) == "not_yet_valid")
        let noNotBefore = TokenFactory.token(payload: TokenFactory.claims(exp: "1700003600", iat: "1700000000"))
        clock.set(1_700_000_100)
        #expect(Self.reason(verifier, noNotBefore) == "valid")
        clock.set(1_700_000_000 - 61)
        #expect(Self.reason(verifier, noNotBefore) == "issued_in_future")
        let counters = try #require(verifier.cache?.counters)
        #expect(counters.insertions == 2)
        #expect(counters.hits == 4)  // every verdict after the first of each token came from the cache
    }

    @Test("a hit checks this call's nonce: wrong is nonce_mismatch, missing when required is nonce_missing")
    func nonceRunsAgain() throws {
        let verifier = Self.cached(TestClock(TokenFactory.now))
        let withNonce = TokenFactory.token(
            payload: TokenFactory.claims(extra: #""nonce":"\#(Nonce.expectedClaim(forRawNonce: "r1"))""#))
        #expect(Self.reason(verifier, withNonce, nonce: "r1") == "valid")
        #expect(Self.reason(verifier, withNonce, nonce: "r2") == "nonce_mismatch")
        #expect(Self.reason(verifier, withNonce) == "valid")  // no nonce asked for: none checked
        let withoutNonce = TokenFactory.token(payload: TokenFactory.claims())
        #expect(Self.reason(verifier, withoutNonce) == "valid")
        #expect(Self.reason(verifier, withoutNonce, nonce: "r1") == "nonce_missing")
        #expect(verifier.cache?.counters.hits == 3)
    }

    @Test("a tampered copy of a cached token is bad_signature: the bytes are compared in full")
    func tampered() throws {
        let verifier = Self.cached(TestClock(TokenFactory.now))
        let token = TokenFactory.token(payload: TokenFactory.claims())
        #expect(Self.reason(verifier, token) == "valid")
        var bytes = Array(token.utf8)
        // A changed signature or payload character: bad_signature (the signature step comes before
        // the payload is read); a changed header character fails at the header already.
        let payloadMiddle = (token.split(separator: ".")[0].count + 1) + token.split(separator: ".")[1].count / 2
        for (position, expected) in [(bytes.count - 2, "bad_signature"), (payloadMiddle, "bad_signature"), (5, nil)] {
            var copy = bytes
            copy[position] = copy[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let verdict: String
            do {
                _ = try verifier.verify(copy)
                verdict = "valid"
            } catch {
                verdict = error.reason.rawValue
            }
            #expect(verdict != "valid", "byte \(position)")
            if let expected { #expect(verdict == expected, "byte \(position)") }
        }
        // Same length and same last 64 octets (the hashed part), different payload: not a hit.
        bytes[bytes.count / 2] ^= 0x01
        #expect(throws: VerificationError.self) { try verifier.verify(bytes) }
        #expect(verifier.cache?.counters.hits == 0)
        #expect(verifier.cache?.counters.insertions == 1)
    }

    @Test("after a rotation removes its key a cached token is unknown_kid; a changed key is verified again")
    func rotation() throws {
        let cache = VerifiedTokenCache(.init(capacity: 64))
        let policy = Self.policy.clock { TokenFactory.now }
        let before = Verifier(keys: TokenFactory.keys, policy: policy, sharedCache: cache)
        let token = TokenFactory.token(payload: TokenFactory.claims())
        #expect(Self.reason(before, token) == "valid")
        // The same keys fetched again (new OpenSSL objects): still a hit.
        let refetched = Verifier(
            keys: try JWKSet(json: Array(TokenFactory.jwksJSON.utf8)), policy: policy, sharedCache: cache)
        #expect(Self.reason(refetched, token) == "valid")
        #expect(cache.counters.hits == 1)
        // rsa-a rotated away.
        let rotated = try JWKSet(
            json: Array("{\"keys\":[\(TokenFactory.rsaB.jwkJSON),\(TokenFactory.ec.jwkJSON)]}".utf8))
        #expect(Self.reason(Verifier(keys: rotated, policy: policy, sharedCache: cache), token) == "unknown_kid")
        #expect(cache.counters.invalidations == 1)
        // Re-cache, then the kid rsa-a names another key: the entry is dropped and the signature fails.
        #expect(Self.reason(before, token) == "valid")
        let impostor = TokenFactory.Signer(kid: "rsa-a", algorithm: .rs256, key: TokenFactory.rsaB.key)
        let changed = try JWKSet(json: Array("{\"keys\":[\(impostor.jwkJSON)]}".utf8))
        #expect(Self.reason(Verifier(keys: changed, policy: policy, sharedCache: cache), token) == "bad_signature")
        #expect(cache.counters.invalidations == 2)
    }

    @Test("two verifiers with different policies never share entries")
    func policiesDoNotShare() throws {
        let clock = TestClock(TokenFactory.now)
        let app = Self.cached(clock)
        let other = Self.cached(clock, policy: .generic(issuer: TokenFactory.issuer, audiences: ["com.example.other"]))
        let token = TokenFactory.token(payload: TokenFactory.claims())
        #expect(Self.reason(app, token) == "valid")
        #expect(Self.reason(other, token) == "audience_mismatch")
        #expect(Self.reason(other, token) == "audience_mismatch")
        #expect(app.cache !== other.cache)
        #expect(other.cache?.counters.hits == 0)
        #expect(other.cache?.counters.insertions == 0)
    }

    @Test("a failed token is never cached")
    func failuresAreNotCached() throws {
        let clock = TestClock(1_800_000_000)
        let verifier = Self.cached(clock)
        let token = TokenFactory.token(payload: TokenFactory.claims())
        for _ in 0..<3 { #expect(Self.reason(verifier, token) == "expired") }
        for bad in [
            TokenFactory.unsignedToken(kid: "rsa-a"), "a.b.c",
            TokenFactory.token(payload: TokenFactory.claims(extra: #""aud":"x""#)),
        ] {
            #expect(Self.reason(verifier, bad) != "valid")
        }
        #expect(verifier.cache?.counters.insertions == 0)
        #expect(verifier.cache?.counters.hits == 0)
        clock.set(TokenFactory.now)
        #expect(Self.reason(verifier, token) == "valid")
        #expect(verifier.cache?.counters.insertions == 1)
    }

    @Test("Firebase auth_time is checked again on a hit")
    func providerTimeRulesRunAgain() throws {
        let clock = TestClock(1_700_000_100)
        let verifier = Self.cached(clock, policy: .firebase(project: "p-1"))
        let payload =
            #"{"iss":"https://securetoken.google.com/p-1","aud":"p-1","exp":1700003600,"iat":1699999000,"sub":"u","auth_time":1700000000}"#
        let token = TokenFactory.token(payload: payload)
        #expect(Self.reason(verifier, token) == "valid")
        clock.set(1_700_000_000 - 61)  // iat (1699999000) is fine, auth_time is in the future
        #expect(Self.reason(verifier, token) == "issued_in_future")
        #expect(verifier.cache?.counters.hits == 1)
    }

    @Test("tokens over the size cap are verified every time, never stored")
    func sizeCap() throws {
        let verifier = Verifier(
            keys: TokenFactory.keys, policy: Self.policy.clock { TokenFactory.now },
            cache: .init(capacity: 8, maxTokenBytes: 100))
        let token = TokenFactory.token(payload: TokenFactory.claims())
        #expect(Self.reason(verifier, token) == "valid")
        #expect(Self.reason(verifier, token) == "valid")
        #expect(verifier.cache?.counters == VerifiedTokenCache.Counters())
    }

    @Test("the capacity bound holds after 1,000,000 distinct tokens")
    func capacityBound() throws {
        let cache = VerifiedTokenCache(.init(capacity: 1000))
        let verified = try Verifier(keys: TokenFactory.keys, policy: Self.policy.clock { TokenFactory.now })
            .verify(TokenFactory.token(payload: TokenFactory.claims()))
        let entry = VerifiedTokenCache.Entry(verified: verified, keyIdentity: 1, emailVerified: nil)
        var token = [UInt8](repeating: UInt8(ascii: "a"), count: 80)
        for n in 0..<1_000_000 {
            withUnsafeBytes(of: UInt64(n)) { digits in for (i, byte) in digits.enumerated() { token[70 + i] = byte } }
            token.withUnsafeBytes { cache.insert($0, hash: cache.hash($0), entry: entry) }
        }
        let counters = cache.counters
        #expect(counters.entries <= 1000)
        #expect(counters.entries >= 990)  // sixteen shards of 62 or 63 slots, nearly all filled
        #expect(counters.insertions == 1_000_000)
        #expect(counters.evictions == counters.insertions - counters.entries)
        // The most recent token is still found, an early one is long gone.
        token.withUnsafeBytes { #expect(cache.lookup($0, hash: cache.hash($0)) != nil) }
        withUnsafeBytes(of: UInt64(0)) { digits in for (i, byte) in digits.enumerated() { token[70 + i] = byte } }
        token.withUnsafeBytes { #expect(cache.lookup($0, hash: cache.hash($0)) == nil) }
    }

    @Test("two threads hammering one cached verifier give the verdicts of an uncached one")
    func hammering() throws {
        let clock = TestClock(TokenFactory.now)
        let cached = Verifier(
            keys: TokenFactory.keys, policy: Self.policy.clock(clock.function), cache: .init(capacity: 16))
        let uncached = Verifier(keys: TokenFactory.keys, policy: Self.policy.clock(clock.function))
        let nonce = Nonce.expectedClaim(forRawNonce: "r")
        var tokens: [String] = (0..<24).map { i in
            TokenFactory.token(
                payload: TokenFactory.claims(extra: #""n":\#(i),"nonce":"\#(nonce)""#),
                signer: i % 3 == 0 ? TokenFactory.ec : TokenFactory.rsa)
        }
        tokens.append(TokenFactory.token(payload: TokenFactory.claims(exp: "1600000000")))
        let tampered = String(tokens[1].dropLast(2)) + "AA"
        tokens.append(tampered)
        let plan: [(token: String, nonce: String?)] = (0..<4000).map { i in
            (tokens[(i * 7) % tokens.count], [nil, "r", "x"][i % 3])
        }
        let expected = plan.map { Self.reason(uncached, $0.token, nonce: $0.nonce) }
        let results = Mutex<[[String]]>([[], []])
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let verdicts = plan.map { Self.reason(cached, $0.token, nonce: $0.nonce) }
            results.withLock { $0[thread] = verdicts }
        }
        let both = results.withLock { $0 }
        #expect(both[0] == expected)
        #expect(both[1] == expected)
        let counters = try #require(cached.cache?.counters)
        #expect(counters.entries <= 16)
        #expect(counters.hits > 1000)  // 24 good tokens in 16 slots: many hits, many evictions
        #expect(counters.evictions > 0)
    }
}
