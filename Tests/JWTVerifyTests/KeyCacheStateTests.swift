import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The cache's rules, with explicit times and no I/O.
@Suite("key cache state machine")
struct KeyCacheStateTests {
    static let keys = TokenFactory.keys
    static let empty = try! JWKSet(json: Array(#"{"keys":[]}"#.utf8))

    @Test("max-age is clamped; its absence gives the default lifetime")
    func ttl() {
        let policy = KeyCachePolicy()
        #expect(policy.ttl(maxAge: 5) == 60)
        #expect(policy.ttl(maxAge: 600) == 600)
        #expect(policy.ttl(maxAge: 10_000_000) == 86_400)
        #expect(policy.ttl(maxAge: nil) == 3_600)
    }

    @Test("fresh, refresh due, stale, unusable")
    func freshness() {
        var state = KeyCacheState(policy: KeyCachePolicy())
        #expect(state.freshness(at: 0) == .empty)
        let r1 = state.beginRefresh(.initial, at: 0)
        #expect(r1)
        state.fetched(Self.keys, maxAge: 1000, etag: "\"v1\"", lastModified: nil, at: 0)
        #expect(state.freshness(at: 799) == .fresh)
        #expect(state.freshness(at: 800) == .refreshDue)
        #expect(state.freshness(at: 1000) == .stale)
        let r2 = state.servingKeys(at: 1000)
        #expect(r2 != nil)
        #expect(state.metrics.staleServes == 1)
        #expect(state.freshness(at: 1000 + 86_400) == .unusable)
        let r3 = state.servingKeys(at: 1000 + 86_400)
        #expect(r3 == nil)
    }

    @Test("single flight: no second fetch while one runs")
    func singleFlight() {
        var state = KeyCacheState(policy: KeyCachePolicy())
        let r4 = state.beginRefresh(.initial, at: 0)
        #expect(r4)
        let r5 = state.beginRefresh(.initial, at: 0)
        #expect(!r5)
        let r6 = state.beginRefresh(.unknownKeyID, at: 0)
        #expect(!r6)
        state.fetched(Self.keys, maxAge: nil, etag: nil, lastModified: nil, at: 0)
        #expect(state.metrics.fetches == 1)
    }

    @Test("unknown kids: one refresh per cooldown window, stamped before the fetch")
    func unknownKidCooldown() {
        var state = KeyCacheState(policy: KeyCachePolicy())
        let r7 = state.beginRefresh(.initial, at: 0)
        #expect(r7)
        state.fetched(Self.keys, maxAge: nil, etag: nil, lastModified: nil, at: 0)
        let r8 = state.beginRefresh(.unknownKeyID, at: 10)
        #expect(r8)
        state.failed("timeout", at: 12)  // even a failed fetch keeps the stamp
        var refused = 0
        for second in 13..<40 where !state.beginRefresh(.unknownKeyID, at: Double(second)) { refused += 1 }
        #expect(refused == 27)
        #expect(state.metrics.cooldownHits == 27)
        let r9 = state.beginRefresh(.unknownKeyID, at: 40)
        #expect(r9)
        #expect(state.metrics.unknownKeyIDRefreshes == 2)
    }

    @Test("failures keep the old keys; an empty set never replaces a good one; 304 extends the lifetime")
    func failures() {
        var state = KeyCacheState(policy: KeyCachePolicy())
        _ = state.beginRefresh(.initial, at: 0)
        state.fetched(Self.keys, maxAge: 100, etag: "\"v1\"", lastModified: "Mon", at: 0)
        _ = state.beginRefresh(.scheduled, at: 90)
        state.fetched(Self.empty, maxAge: 100, etag: "\"v2\"", lastModified: nil, at: 90)
        #expect(state.keys?.keys.count == 3)
        #expect(state.etag == "\"v1\"")
        #expect(state.metrics.failures == 1)
        let backingOff = state.beginRefresh(.scheduled, at: 100)
        #expect(!backingOff)  // backing off after the failure
        let r10 = state.beginRefresh(.scheduled, at: 121)
        #expect(r10)
        state.notModified(maxAge: 300, at: 121)
        #expect(state.freshness(at: 121 + 239) == .fresh)
        #expect(state.expiresAt == 421)
        #expect(state.metrics.notModified == 1)
        #expect(state.generation == 1)
    }
}
