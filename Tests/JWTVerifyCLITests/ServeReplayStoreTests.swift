import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `serve --replay-store redis://HOST:PORT`: two serve processes sharing one real `redis-server`
/// on loopback refuse each other's replays, and both fail closed while it is down.
@Suite(
    "serve --replay-store",
    .enabled(if: ExternalProgram.path("redis-server") != nil, ExternalProgram.missing("redis-server")))
struct ServeReplayStoreTests {
    typealias F = DPoPProofFactory

    static func dpopFlags(_ workspace: TestWorkspace, _ redis: RedisProcess) -> [String] {
        [
            "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks", workspace.jwks.path,
            "--now", "1700001000", "--dpop", "required", "--threads", "1",
            "--replay-store", "redis://127.0.0.1:\(redis.port)",
        ]
    }

    static func notificationFlags(_ workspace: TestWorkspace, _ redis: RedisProcess) -> [String] {
        [
            "--jwks", workspace.jwks.path, "--profile", "apple-notification", "--audience", TokenFactory.audience,
            "--now", "1700001000", "--threads", "1", "--replay-store", "redis://127.0.0.1:\(redis.port)",
        ]
    }

    /// A DPoP request: a bound token and a fresh proof (`jti`) for it, with the forward-auth headers.
    static func dpopRequest(jti: String) -> [(String, String)] {
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        let proof = F.proof(claims: F.claims(htm: "GET", htu: F.uri, jti: jti, token: token))
        return [("Authorization", "DPoP \(token)"), ("DPoP", proof)] + ServeDPoPTests.forwarded
    }

    /// Apple's Sign in with Apple notification body, its `jti` `id`.
    static func notification(id: String) -> [UInt8] {
        let events = #"{\"type\":\"account-delete\",\"sub\":\"001234.abc.1234\",\"event_time\":1700000950123}"#
        let jws = TokenFactory.token(
            payload:
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"jti":"\#(id)","events":"\#(events)"}"#
        )
        return Array(#"{"payload":"\#(jws)"}"#.utf8)
    }

    static func json(_ response: RawHTTP.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    static func metrics(_ serve: ServeProcess) throws -> String {
        String(decoding: try RawHTTP.request(serve.port, path: "/metrics").body, as: UTF8.self)
    }

    @Test("a DPoP proof accepted by one replica is dpop_replayed at the other; a fresh proof passes at either")
    func dpopShared() throws {
        let workspace = try TestWorkspace()
        let redis = try RedisProcess(directory: workspace.directory)
        let a = try ServeProcess(Self.dpopFlags(workspace, redis))
        let b = try ServeProcess(Self.dpopFlags(workspace, redis))
        let request = Self.dpopRequest(jti: "shared-1")
        let first = try RawHTTP.request(a.port, path: "/auth", headers: request)
        #expect(first.status == 200 && first.header("X-JWT-Sub") == "user-5", "\(first.header("X-JWT-Reason") ?? "")")
        let replayed = try RawHTTP.request(b.port, path: "/auth", headers: request)
        #expect(replayed.status == 401 && replayed.header("X-JWT-Reason") == "dpop_replayed")
        #expect(replayed.header("WWW-Authenticate")?.hasPrefix(#"DPoP error="invalid_dpop_proof""#) == true)
        // And back at the first replica, which saw it itself.
        let again = try RawHTTP.request(a.port, path: "/auth", headers: request)
        #expect(again.status == 401 && again.header("X-JWT-Reason") == "dpop_replayed")
        let fresh = try RawHTTP.request(b.port, path: "/auth", headers: Self.dpopRequest(jti: "shared-2"))
        #expect(fresh.status == 200, "\(fresh.header("X-JWT-Reason") ?? "")")
        let text = try Self.metrics(b)
        #expect(
            text.contains("\njwtverify_replay_store_up 1\n")
                && text.contains("\njwtverify_replay_store_errors_total 0\n"))
        // The store holds the proofs under namespaced, hashed keys with their expiry.
        let keys = try ExternalProgram.run(
            ExternalProgram.path("redis-cli")!, ["-p", "\(redis.port)", "--scan", "--pattern", "jwtverify:dpop:*"])
        let names = keys.output.split(separator: "\n").map(String.init)
        #expect(names.count == 2)
        #expect(
            names.allSatisfy {
                $0.range(of: "^jwtverify:dpop:default:[0-9a-f]{64}$", options: .regularExpression) != nil
            })
        let ttl = try ExternalProgram.run(
            ExternalProgram.path("redis-cli")!, ["-p", "\(redis.port)", "PTTL", names[0]])
        let milliseconds = Int(ttl.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(milliseconds > 0 && milliseconds <= 120_000, "PTTL \(ttl.output)")
    }

    @Test("a notification posted to one replica and then to the other is a duplicate at the second")
    func notificationShared() throws {
        let workspace = try TestWorkspace()
        let redis = try RedisProcess(directory: workspace.directory)
        let a = try ServeProcess(Self.notificationFlags(workspace, redis))
        let b = try ServeProcess(Self.notificationFlags(workspace, redis))
        let body = Self.notification(id: "shared-n1")
        let first = try RawHTTP.request(a.port, method: "POST", path: "/notifications", body: body)
        #expect(first.status == 200 && Self.json(first)["duplicate"] as? Bool == false)
        let second = try RawHTTP.request(b.port, method: "POST", path: "/notifications", body: body)
        #expect(second.status == 200 && Self.json(second)["duplicate"] as? Bool == true)
        #expect(Self.json(second)["id"] as? String == "shared-n1")
        let other = try RawHTTP.request(
            b.port, method: "POST", path: "/notifications", body: Self.notification(id: "n2"))
        #expect(other.status == 200 && Self.json(other)["duplicate"] as? Bool == false)
    }

    @Test("redis down: DPoP and notifications 503 with Retry-After and the metric says so; redis back: works again")
    func failsClosed() throws {
        let workspace = try TestWorkspace()
        var redis = try RedisProcess(directory: workspace.directory)
        let port = redis.port
        let dpop = try ServeProcess(Self.dpopFlags(workspace, redis))
        let notices = try ServeProcess(Self.notificationFlags(workspace, redis))
        #expect(try RawHTTP.request(dpop.port, path: "/auth", headers: Self.dpopRequest(jti: "up-1")).status == 200)
        redis.stop()

        let refused = try RawHTTP.request(dpop.port, path: "/auth", headers: Self.dpopRequest(jti: "down-1"))
        #expect(refused.status == 503 && refused.header("X-JWT-Reason") == "replay_store_unavailable")
        #expect(refused.header("Retry-After") == "5" && refused.header("Cache-Control") == "no-store")
        let unrecorded = try RawHTTP.request(
            notices.port, method: "POST", path: "/notifications", body: Self.notification(id: "down-n1"))
        #expect(unrecorded.status == 503 && unrecorded.header("Retry-After") == "60")
        #expect(unrecorded.header("X-JWT-Reason") == "replay_store_unavailable")
        #expect(Self.json(unrecorded)["reason"] as? String == "replay_store_unavailable")
        let down = try Self.metrics(dpop)
        #expect(down.contains("\njwtverify_replay_store_up 0\n"))
        #expect(
            !down.contains("\njwtverify_replay_store_errors_total 0\n")
                && down.contains("jwtverify_replay_store_errors_total "))
        #expect(
            down.contains(
                #"jwtverify_verifications_total{route="default",result="rejected",reason="replay_store_unavailable"} 1"#
            ))
        if let promtool = ExternalProgram.path("promtool") {
            let file = workspace.directory.appendingPathComponent("metrics.txt")
            try Data(down.utf8).write(to: file)
            let checked = try ExternalProgram.run(promtool, ["check", "metrics"], input: file)
            #expect(checked.status == 0, "\(checked.output)")
        }

        redis = try RedisProcess(port: port, directory: workspace.directory)
        // The refused proof was never recorded: it passes now, once.
        let back = try RawHTTP.request(dpop.port, path: "/auth", headers: Self.dpopRequest(jti: "down-1"))
        #expect(back.status == 200, "\(back.header("X-JWT-Reason") ?? "")")
        let replay = try RawHTTP.request(dpop.port, path: "/auth", headers: Self.dpopRequest(jti: "down-1"))
        #expect(replay.status == 401 && replay.header("X-JWT-Reason") == "dpop_replayed")
        let delivered = try RawHTTP.request(
            notices.port, method: "POST", path: "/notifications", body: Self.notification(id: "down-n1"))
        #expect(delivered.status == 200 && Self.json(delivered)["duplicate"] as? Bool == false)
        #expect(try Self.metrics(dpop).contains("\njwtverify_replay_store_up 1\n"))
        redis.stop()
    }

    @Test("a store not reachable at start: serve starts, warns, answers 503 and shows the store down")
    func unreachableAtStart() throws {
        let workspace = try TestWorkspace()
        let port = ExternalProgram.freePort()
        let serve = try ServeProcess([
            "--jwks", workspace.jwks.path, "--profile", "apple-notification", "--audience", TokenFactory.audience,
            "--now", "1700001000", "--threads", "1", "--replay-store", "redis://127.0.0.1:\(port)",
        ])
        #expect(serve.stderr.contains("warning: --replay-store 127.0.0.1:\(port): "), "\(serve.stderr)")
        let text = try Self.metrics(serve)
        #expect(
            text.contains("\njwtverify_replay_store_up 0\n")
                && text.contains("\njwtverify_replay_store_errors_total 1\n"))
        let refused = try RawHTTP.request(
            serve.port, method: "POST", path: "/notifications", body: Self.notification(id: "n-dead"))
        #expect(refused.status == 503 && refused.header("X-JWT-Reason") == "replay_store_unavailable")
    }

    @Test("--replay-store takes redis://HOST:PORT only")
    func refusesOtherURLs() throws {
        for url in ["http://127.0.0.1:6379", "redis://user:pw@127.0.0.1:6379", "redis://127.0.0.1:0", "redis://h/1"] {
            let result = try CLIRunner.run(
                ["serve", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--replay-store", url])
            #expect(result.status == 64 && result.stderr.contains("--replay-store"), "\(url): \(result.stderr)")
        }
    }
}
