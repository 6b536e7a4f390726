import JWTVerifyServer
import Testing

@testable import JWTVerify

/// What `--replay-store` writes and reads: its keys (namespaced, no untrusted byte as sent) and
/// its address (`redis://HOST:PORT`, nothing else).
@Suite("replay store keys and address")
struct ReplayStoreKeyTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("keys: jwtverify:KIND:ROUTE:HEX, the route percent-encoded outside a plain set, the ID hashed")
    func keys() {
        let digest = Array("thumbprint\u{0}jti".utf8).withUnsafeBytes { SHA256Digest(hashing: $0) }
        let dpop = Self.text(ReplayStoreKey.dpop(route: "api#1", proof: DPoPReplayKey(digest)))
        #expect(dpop == "jwtverify:dpop:api#1:" + digest.hex)
        let id = "a b\r\n*3 é:"
        let hashed = Array(id.utf8).withUnsafeBytes { SHA256Digest(hashing: $0) }.hex
        let notification = Self.text(ReplayStoreKey.notification(route: "ios app:x/é", id: id))
        #expect(notification == "jwtverify:notification:ios%20app%3Ax%2F%C3%A9:" + hashed)
        // Two routes never share a key, even when one's name looks like the other's encoding.
        #expect(
            ReplayStoreKey.notification(route: "a%20b", id: "1") != ReplayStoreKey.notification(route: "a b", id: "1"))
    }

    @Test("redis://HOST:PORT: a name, IPv4 or [IPv6], the port defaulting to 6379; anything more refused")
    func address() {
        func parsed(_ url: String) -> RedisAddress? { try? RedisAddress.parse(url).get() }
        #expect(parsed("redis://127.0.0.1:6380") == RedisAddress(host: "127.0.0.1", port: 6380))
        #expect(parsed("redis://cache.internal") == RedisAddress(host: "cache.internal", port: 6379))
        #expect(parsed("redis://[::1]:7000") == RedisAddress(host: "::1", port: 7000))
        #expect(parsed("redis://[::1]:7000")?.display == "[::1]:7000")
        for bad in [
            "http://127.0.0.1:6379", "redis://", "redis://:6379", "redis://h:0", "redis://h:65536", "redis://h:x",
            "redis://u:p@h:1", "redis://h:1/0", "redis://[::1", "redis://[::1]x", "redis://h:+1",
        ] {
            #expect(parsed(bad) == nil, "\(bad)")
        }
    }
}
