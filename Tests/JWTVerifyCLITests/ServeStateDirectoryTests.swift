import Foundation
import JWTVerify
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve --state-dir DIR`: each notification route's seen-notification window on disk, through
/// the real binary: kept across a stop and a start, never acknowledged before it is written, and a
/// file that is not one refused by name.
@Suite("jwtverify serve --state-dir")
struct ServeStateDirectoryTests {
    static let flags = [
        "--profile", "apple-notification", "--audience", TokenFactory.audience, "--now", "1700001000", "--threads", "1",
    ]

    /// A Sign in with Apple notification body whose `jti` is `jti`.
    static func body(jti: String) -> [UInt8] {
        let events = #"{\"type\":\"account-delete\",\"sub\":\"001234.abc.1234\",\"event_time\":1700000950123}"#
        let jws = TokenFactory.token(
            payload:
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"#
                + #""jti":"\#(jti)","events":"\#(events)"}"#
        )
        return Array(#"{"payload":"\#(jws)"}"#.utf8)
    }

    static func json(_ response: RawHTTP.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    /// The hex of `text`'s UTF-8, as the file names and lines spell IDs.
    static func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }

    static func post(_ port: Int, _ body: [UInt8], route: String = "") throws -> RawHTTP.Response {
        try RawHTTP.request(port, method: "POST", path: "/notifications" + route, body: body)
    }

    @Test("seen before SIGTERM, a duplicate after a start with the same --state-dir; without it, forgotten")
    func survivesRestart() throws {
        let workspace = try TestWorkspace()
        let state = workspace.file("state/serve").path  // created, with its parent, by serve
        let arguments = ["--jwks", workspace.jwks.path] + Self.flags + ["--state-dir", state]
        let body = Self.body(jti: "restart-1")
        do {
            let serve = try ServeProcess(arguments)
            let first = try Self.post(serve.port, body)
            #expect(
                first.status == 200 && Self.json(first)["duplicate"] as? Bool == false
                    && Self.json(first)["id"] as? String == "restart-1")
            serve.signal(SIGTERM)
            #expect(serve.reap(seconds: 15) == 0)
        }
        // One file for the default route, named by the hex of its name, holding the ID's line.
        let file = state + "/notifications-\(Self.hex("default")).window"
        #expect(
            try String(contentsOfFile: file, encoding: .utf8)
                == "jwtverify-notification-window 1\n1700001000.0 \(Self.hex("restart-1"))\n")
        var info = stat()
        #expect(stat(state, &info) == 0 && info.st_mode & 0o777 == 0o700)

        let again = try ServeProcess(arguments)
        let repeated = try Self.post(again.port, body)
        #expect(
            repeated.status == 200 && Self.json(repeated)["duplicate"] as? Bool == true
                && Self.json(repeated)["id"] as? String == "restart-1")
        let other = try Self.post(again.port, Self.body(jti: "restart-2"))
        #expect(other.status == 200 && Self.json(other)["duplicate"] as? Bool == false)

        // Without --state-dir the window is in memory, as before: a fresh process has not seen it.
        let memory = try ServeProcess(["--jwks", workspace.jwks.path] + Self.flags)
        let forgotten = try Self.post(memory.port, body)
        #expect(forgotten.status == 200 && Self.json(forgotten)["duplicate"] as? Bool == false)
    }

    @Test("README, --help and the packaged unit say where windows live; the unit's StateDirectory is its --state-dir")
    func documented() throws {
        func file(_ path: String) throws -> String {
            try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        }
        let readme = try file("README.md")
        #expect(
            readme.contains("`--state-dir DIR`")
                && readme.contains("`DIR/notifications-<hex of the route name's bytes>.window`"))
        #expect(readme.contains("jwtverify-notification-window 1\n1700001000.0 \(Self.hex("serve-1"))\n"))
        let help = try CLIRunner.run(["serve", "--help"]).stdoutText
        #expect(help.contains("--state-dir DIR") && help.contains("7 days (at most 100000)"))
        let unit = try file("scripts/debian/jwtverify.service")
        #expect(unit.contains("\nStateDirectory=jwtverify\n") && unit.contains("--state-dir /var/lib/jwtverify\n"))
        #expect(unit.contains("\nProtectSystem=strict\n"))  // StateDirectory= is what stays writable under it
    }

    @Test("a file that is not a window stops the start (exit 65, named, left as it is) and fails a reload")
    func refusesForeignFile() throws {
        let workspace = try TestWorkspace()
        let state = workspace.file("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let file = state + "/notifications-\(Self.hex("default")).window"
        let foreign = #"{"not": "a window"}"#
        try foreign.write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try CLIRunner.run(
            ["serve", "--listen", "127.0.0.1:0", "--jwks", workspace.jwks.path] + Self.flags + ["--state-dir", state])
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains("--state-dir: state_malformed: \(file) is not a notification window file"),
            "\(refused.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == foreign)

        // A route added by a reload whose file is damaged: the reload fails, the old routes serve on.
        let config = workspace.file("routes.json")
        func routes(_ names: [String]) -> String {
            let members = names.map {
                #""\#($0)": {"profile": "apple-notification", "jwks": ["\#(workspace.jwks.path)"], "#
                    + #""audience": "\#(TokenFactory.audience)", "now": 1700001000}"#
            }
            return #"{"routes": {"# + members.joined(separator: ", ") + "}}"
        }
        try routes(["a"]).write(to: config, atomically: true, encoding: .utf8)
        let damaged = state + "/notifications-\(Self.hex("b")).window"
        try "jwtverify-notification-window 1\n1700001000.0 zz\n".write(
            toFile: damaged, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(["--config", config.path, "--state-dir", state])
        #expect(try Self.post(serve.port, Self.body(jti: "reload-1"), route: "/a").status == 200)
        try routes(["a", "b"]).write(to: config, atomically: true, encoding: .utf8)
        serve.signal(SIGHUP)
        #expect(serve.waitForStderr("reload failed"), "\(serve.stderr)")
        #expect(serve.stderr.contains("state_malformed: \(damaged), line 2"), "\(serve.stderr)")
        #expect(try Self.post(serve.port, Self.body(jti: "reload-1"), route: "/b").status == 404)
        #expect(
            Self.json(try Self.post(serve.port, Self.body(jti: "reload-1"), route: "/a"))["duplicate"] as? Bool == true)
        #expect(
            try String(contentsOfFile: state + "/notifications-\(Self.hex("a")).window", encoding: .utf8).contains(
                Self.hex("reload-1")))
    }

    @Test("an ID that cannot be written (ulimit -f for a full disk): 503 with Retry-After, never 200, unrecorded")
    func neverAcknowledgedUnwritten() throws {
        let workspace = try TestWorkspace()
        let state = workspace.file("state").path
        let serve = try ServeProcess(
            ["--jwks", workspace.jwks.path] + Self.flags + ["--state-dir", state], shell: "ulimit -f 1")
        var accepted: [String] = []
        var refusal: (jti: String, response: RawHTTP.Response)? = nil
        for index in 0..<40 {
            let jti = "unwritable-jti-\(1000 + index)"
            let answer = try Self.post(serve.port, Self.body(jti: jti))
            if answer.status != 200 {
                refusal = (jti, answer)
                break
            }
            #expect(Self.json(answer)["duplicate"] as? Bool == false)
            accepted.append(jti)
        }
        let (jti, response) = try #require(
            refusal, "every notification was acknowledged under a 512-octet file-size limit")
        #expect(!accepted.isEmpty)
        #expect(response.status == 503 && response.header("Retry-After") == "60", "\(response.status) \(response.text)")
        #expect(Self.json(response)["error"] as? String == "state_unwritable", "\(response.text)")
        #expect(!response.text.contains(state))  // the answer does not name the file
        // Not recorded: Apple's retry is refused again rather than taken for a duplicate, and the
        // file holds exactly the acknowledged IDs, whole lines only.
        #expect(try Self.post(serve.port, Self.body(jti: jti)).status == 503)
        #expect(Self.json(try Self.post(serve.port, Self.body(jti: accepted[0])))["duplicate"] as? Bool == true)
        let file = state + "/notifications-\(Self.hex("default")).window"
        let lines = accepted.map { "1700001000.0 \(Self.hex($0))\n" }.joined()
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "jwtverify-notification-window 1\n" + lines)
    }
}
