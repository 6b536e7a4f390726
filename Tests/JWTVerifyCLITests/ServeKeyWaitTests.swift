import Foundation
import JWTVerify
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

/// Key I/O never blocks other work: with the key origin hanging, a token naming an unknown `kid`
/// starts one refresh and waits at most `--refresh-wait`, while `/healthz`, `/metrics` and valid
/// tokens are answered at once, even by a single event loop.
@Suite("serve: a slow key origin never holds other requests", .serialized)
struct ServeKeyWaitTests {
    static let stranger = TokenFactory.Signer(
        kid: "stranger", algorithm: .rs256, key: try! EVPPrivateKey.generateRSA(bits: 2048))

    /// The seconds `body` took.
    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = Date()
        let value = try body()
        return (value, Date().timeIntervalSince(start))
    }

    /// A serve over `origin`'s keys, ready, with the origin then set to hang (30 s before it answers).
    static func hangingOrigin(threads: Int, _ extra: [String] = []) throws -> (OriginServer, ServeProcess) {
        let origin = try OriginServer()
        try origin.set(["document": "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}", "max_age": 600])
        let serve = try ServeProcess(
            [
                "--jwks", origin.keysURL, "--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience, "--now",
                "1700001000", "--threads", "\(threads)", "--access-log",
            ]
                + extra)
        #expect(try RawHTTP.request(serve.port, path: "/ready").status == 200)
        try origin.set(["mode": "hang"])
        return (origin, serve)
    }

    @Test(
        "one loop: an unknown kid waits 250 ms and gets 503 jwks_unavailable; /healthz, /metrics and a valid token meanwhile answer at once"
    )
    func oneLoop() throws {
        let (origin, serve) = try Self.hangingOrigin(threads: 1)
        defer { withExtendedLifetime(origin) {} }
        let unknown = TokenFactory.token(payload: TokenFactory.claims(), signer: Self.stranger)
        let waiter = DispatchGroup()
        let box = ResponseBox()
        DispatchQueue.global().async(group: waiter) {
            box.set(Self.timed { try? RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(unknown)) })
        }
        usleep(50_000)  // the unknown kid's request is in, its refresh started
        let (health, healthSeconds) = try Self.timed { try RawHTTP.request(serve.port, path: "/healthz") }
        let (metrics, _) = try Self.timed { try RawHTTP.request(serve.port, path: "/metrics") }
        let (valid, validSeconds) = try Self.timed {
            try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(ServeTests.valid))
        }
        waiter.wait()
        #expect(health.status == 200 && metrics.status == 200 && valid.status == 200)
        // Before, each of these waited for the origin's fetch (5 s); the bound here is 1 s.
        #expect(healthSeconds < 1 && validSeconds < 1, "healthz \(healthSeconds) s, valid \(validSeconds) s")
        let (answer, seconds) = box.value!
        #expect(answer?.status == 503, "\(serve.stderr)")
        #expect(answer?.header("X-JWT-Reason") == "jwks_unavailable")
        #expect(answer?.header("Retry-After") != nil)
        #expect(seconds >= 0.2 && seconds < 2, "the unknown kid's request took \(seconds) s")
        // The held request counts once, by its final answer: no unknown_kid from its first look.
        let counted = try RawHTTP.request(serve.port, path: "/metrics").text
        #expect(
            counted.contains(
                #"jwtverify_verifications_total{route="default",result="rejected",reason="jwks_unavailable"} 1"#),
            "\(counted)")
        #expect(!counted.contains(#"reason="unknown_kid"} "#), "\(counted)")
        // The refresh is under way (or over): within the cooldown no other starts, so the next
        // unknown kid is answered at once.
        let (again, againSeconds) = try Self.timed {
            try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(unknown))
        }
        #expect(again.status == 401 || again.status == 503)
        #expect(againSeconds < 1, "\(againSeconds) s")
    }

    @Test(
        "eight unknown kids at once on two loops: every other request still answers at once; --refresh-wait sets the wait"
    )
    func eightAtOnce() throws {
        let (origin, serve) = try Self.hangingOrigin(threads: 2, ["--refresh-wait", "1"])
        defer { withExtendedLifetime(origin) {} }
        let unknown = (0..<8).map { index in
            TokenFactory.token(
                payload: TokenFactory.claims(),
                signer: TokenFactory.Signer(kid: "k\(index)", algorithm: .rs256, key: Self.stranger.key))
        }
        let group = DispatchGroup()
        let boxes = unknown.map { _ in ResponseBox() }
        for (token, box) in zip(unknown, boxes) {
            DispatchQueue.global().async(group: group) {
                box.set(
                    Self.timed { try? RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(token)) })
            }
        }
        usleep(100_000)
        var slowest = 0.0
        for _ in 0..<5 {
            let (health, seconds) = try Self.timed { try RawHTTP.request(serve.port, path: "/healthz") }
            #expect(health.status == 200)
            slowest = max(slowest, seconds)
        }
        #expect(slowest < 1, "the slowest /healthz took \(slowest) s while eight requests waited for keys")
        group.wait()
        for box in boxes {
            let (answer, seconds) = box.value!
            // The first requests wait for the refresh; any that came after it had started join it.
            #expect(answer?.status == 503 || answer?.status == 401, "\(String(describing: answer?.status))")
            #expect(seconds < 3, "\(seconds) s")
        }
        #expect(
            boxes.contains { $0.value!.0?.status == 503 && $0.value!.1 >= 0.9 },
            "no request waited the second --refresh-wait gives")
    }

    @Test("/verify with an unknown kid waits for the refresh as /auth does, and a rotated-in key then verifies")
    func verifyBodyRotation() throws {
        let origin = try OriginServer()
        try origin.set(["document": "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}", "max_age": 600, "etag": "\"v1\""])
        let serve = try ServeProcess(
            [
                "--jwks", origin.keysURL, "--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience, "--now",
                "1700001000", "--threads", "1", "--refresh-wait", "10",
            ])
        #expect(try RawHTTP.request(serve.port, path: "/ready").status == 200)
        try origin.set([
            "document": "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(Self.stranger.jwkJSON)]}", "etag": "\"v2\"",
        ])
        let token = TokenFactory.token(payload: TokenFactory.claims(), signer: Self.stranger)
        let answer = try RawHTTP.request(
            serve.port, method: "POST", path: "/verify", body: Array(#"{"id":1,"token":"\#(token)"}"#.utf8))
        #expect(answer.status == 200)
        #expect(answer.text.contains(#""valid":true"#), "\(answer.text)")
    }
}

/// One response and its time, handed from a request thread to the test.
private final class ResponseBox: @unchecked Sendable {
    // Safety: written once by the request's thread before the group is left; read after the wait.
    private(set) var value: (RawHTTP.Response?, Double)?
    func set(_ value: (RawHTTP.Response?, Double)) { self.value = value }
}
