import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `serve` behind the real gateways users run, from Debian: nginx `auth_request` and Caddy
/// `forward_auth`, with the configs the README shows (`Tests/Gateways`), and Prometheus's
/// `promtool` reading a live `/metrics`. Each program runs on free loopback ports and is stopped
/// afterwards.
@Suite("serve behind real gateways")
struct GatewayTests {
    static let gateways = CLIRunner.repositoryRoot.appendingPathComponent("Tests/Gateways")

    /// A started program, killed when released.
    final class Running: @unchecked Sendable {
        let process = Process()
        init(_ path: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL) throws {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.currentDirectoryURL = directory
            if let environment { process.environment = environment }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: Self.touch(directory.appendingPathComponent("stderr.log")))
            try process.run()
        }
        static func touch(_ url: URL) throws -> URL {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }
        deinit {
            process.terminate()
            for _ in 0..<200 where process.isRunning { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    static func render(_ template: String, _ values: [String: String]) throws -> String {
        var text = try String(contentsOf: gateways.appendingPathComponent(template), encoding: .utf8)
        for (name, value) in values { text = text.replacingOccurrences(of: "{{\(name)}}", with: value) }
        return text
    }

    /// A drop-in file as the README shows it, with serve's default address and the example
    /// backend's replaced by the test's free ports, written into the workspace.
    static func dropIn(_ file: String, into workspace: ServeTests.Workspace, servePort: Int, backendPort: Int? = nil) throws {
        var text = try String(contentsOf: gateways.appendingPathComponent(file), encoding: .utf8)
        #expect(text.contains("127.0.0.1:8080") || (backendPort != nil && text.contains("127.0.0.1:3000")), "\(file) names no address to replace")
        text = text.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(servePort)")
        if let backendPort { text = text.replacingOccurrences(of: "127.0.0.1:3000", with: "127.0.0.1:\(backendPort)") }
        try text.write(to: workspace.file(file), atomically: true, encoding: .utf8)
    }

    /// nginx on a free port with the README's drop-in files in front of `serve`, and its backend.
    static func nginx(in workspace: ServeTests.Workspace, before serve: ServeProcess) throws -> (port: Int, nginx: Running) {
        let port = ExternalProgram.freePort(), backend = ExternalProgram.freePort()
        let config = try Self.render("nginx.conf", ["DIR": workspace.directory.path, "PORT": "\(port)", "BACKEND_PORT": "\(backend)"])
        try Self.dropIn("jwtverify-upstream.conf", into: workspace, servePort: serve.port)
        try Self.dropIn("jwtverify-locations.conf", into: workspace, servePort: serve.port, backendPort: backend)
        try config.write(to: workspace.file("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try Running(ExternalProgram.path("nginx")!, ["-p", workspace.directory.path, "-c", workspace.file("nginx.conf").path], directory: workspace.directory)
        return (port, nginx)
    }

    static func serve() throws -> (ServeTests.Workspace, ServeProcess) {
        let workspace = try ServeTests.Workspace()
        return (workspace, try ServeProcess(ServeTests.flags(workspace)))
    }

    @Test("nginx auth_request: the backend sees X-JWT-Sub; a refused request gets nginx's 401 or 403 with our WWW-Authenticate and X-JWT-Reason",
          .enabled(if: ExternalProgram.path("nginx") != nil, ExternalProgram.missing("nginx")))
    func nginx() throws {
        let (workspace, serve) = try Self.serve()
        let (port, nginx) = try Self.nginx(in: workspace, before: serve)
        #expect(ExternalProgram.waitForPort(port), "nginx did not start: \((try? String(contentsOf: workspace.file("error.log"), encoding: .utf8)) ?? "")")

        let ok = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(ServeTests.valid))
        #expect(ok.status == 200)
        #expect(ok.text == "backend saw X-JWT-Sub: 001234.abc.1234\n")
        let none = try RawHTTP.request(port, path: "/app")
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == "Bearer")
        #expect(none.header("X-JWT-Reason") == nil)
        let expired = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(TokenFactory.token(payload: TokenFactory.claims(exp: "1700000100"))))
        #expect(expired.status == 401)
        #expect(expired.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="expired""#)
        #expect(expired.header("X-JWT-Reason") == "expired")
        let elsewhere = TokenFactory.token(payload: #"{"iss":"https://appleid.apple.com","aud":"other","exp":1700003600,"iat":1700000000,"sub":"s"}"#)
        let forbidden = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(elsewhere))
        #expect(forbidden.status == 403)
        #expect(forbidden.header("X-JWT-Reason") == "audience_mismatch")
        #expect(ok.header("X-JWT-Reason") == nil)
        withExtendedLifetime(nginx) {}
    }

    @Test("behind nginx's kept-alive upstream connections, SIGTERM stops serve at once: idle connections closed, not waited for (the drain allows 10 s)",
          .enabled(if: ExternalProgram.path("nginx") != nil, ExternalProgram.missing("nginx")))
    func stopsWithKeptAliveConnections() throws {
        let (workspace, serve) = try Self.serve()
        let (port, nginx) = try Self.nginx(in: workspace, before: serve)
        #expect(ExternalProgram.waitForPort(port))
        // Several requests at once, so that nginx keeps several upstream connections to serve alive.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<4 { _ = try? RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(ServeTests.valid)) }
        }
        #expect(try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(ServeTests.valid)).status == 200)
        let start = Date()
        serve.signal(SIGTERM)
        let status = serve.reap(seconds: 20)
        let elapsed = Date().timeIntervalSince(start)
        #expect(status == 0)
        // Idle connections are closed when the drain starts (measured: about 0.01 s); before, the
        // drain waited its full 10 s for them. The bound leaves room for a loaded machine.
        #expect(elapsed < 5, "SIGTERM to exit took \(elapsed) s with nginx's kept-alive connections open")
        print("serve: SIGTERM to exit with nginx's kept-alive connections open: \(String(format: "%.3f", elapsed)) s")
        withExtendedLifetime(nginx) {}
    }

    @Test("Caddy forward_auth with copy_headers: the backend sees X-JWT-Sub; a bad token gets our 401",
          .enabled(if: ExternalProgram.path("caddy") != nil, ExternalProgram.missing("caddy")))
    func caddy() throws {
        let (workspace, serve) = try Self.serve()
        let port = ExternalProgram.freePort()
        try Self.render("Caddyfile", ["DIR": workspace.directory.path, "PORT": "\(port)"]).write(
            to: workspace.file("Caddyfile"), atomically: true, encoding: .utf8)
        try Self.dropIn("jwtverify.caddy", into: workspace, servePort: serve.port)
        let home = workspace.directory.path
        let caddy = try Running(
            ExternalProgram.path("caddy")!, ["run", "--config", workspace.file("Caddyfile").path, "--adapter", "caddyfile"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home, "PATH": "/usr/bin:/bin"], directory: workspace.directory)
        #expect(ExternalProgram.waitForPort(port), "caddy did not start: \((try? String(contentsOf: workspace.file("stderr.log"), encoding: .utf8)) ?? "")")

        let ok = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(ServeTests.valid))
        #expect(ok.status == 200)
        #expect(ok.text == "backend saw X-JWT-Sub: 001234.abc.1234")
        var parts = ServeTests.valid.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(TokenFactory.claims(extra: #""admin":true"#).utf8))
        let forged = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(parts.joined(separator: ".")))
        #expect(forged.status == 401)
        #expect(forged.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="bad_signature""#)
        #expect(forged.header("X-JWT-Reason") == "bad_signature")
        withExtendedLifetime(caddy) {}
    }

    @Test("the README shows exactly the drop-in nginx and Caddy files these tests run, and not the tests' whole configs")
    func readmeConfigs() throws {
        let readme = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for (file, language) in [("jwtverify-upstream.conf", "nginx"), ("jwtverify-locations.conf", "nginx"), ("jwtverify.caddy", "caddyfile")] {
            let text = try String(contentsOf: Self.gateways.appendingPathComponent(file), encoding: .utf8)
            #expect(readme.contains("```\(language)\n\(text)```"), "\(file)")
            #expect(!text.contains("{{"), "\(file) has a placeholder")
        }
        #expect(!readme.contains("{{"), "the README shows a template placeholder")
    }

    @Test("promtool check metrics passes on a live /metrics with every family populated",
          .enabled(if: ExternalProgram.path("promtool") != nil, ExternalProgram.missing("promtool")))
    func promtool() throws {
        let (workspace, serve) = try Self.serve()
        _ = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(ServeTests.valid))
        _ = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(ServeTests.valid))
        _ = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer("a.b.c"))
        _ = try RawHTTP.request(serve.port, path: "/nope")
        #expect(try RawHTTP.request(serve.port, path: "/auth").status == 401)  // no token
        let metrics = try RawHTTP.request(serve.port, path: "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        for family in ["jwtverify_verifications_total", "jwtverify_verification_duration_seconds_bucket", "jwtverify_http_responses_total",
                       "jwtverify_token_cache_hits_total", "jwtverify_keys", "jwtverify_keys_age_seconds"] {
            #expect(metrics.text.contains("\n\(family){"), "\(family)")
        }
        #expect(metrics.text.contains(#"jwtverify_token_cache_hits_total{route="default"} 1"#))
        // A request without a token counts as a gateway check too, beside the HTTP status.
        #expect(metrics.text.contains(#"jwtverify_verifications_total{route="default",result="no_token",reason="none"} 1"#), "\(metrics.text)")
        #expect(metrics.text.contains(#"jwtverify_verifications_total{route="default",result="valid",reason="none"} 2"#))
        let input = workspace.file("metrics.txt")
        try metrics.body.write(to: input)
        let (status, said) = try ExternalProgram.run(ExternalProgram.path("promtool")!, ["check", "metrics"], input: input)
        #expect(status == 0, "\(said)")
        #expect(said.isEmpty, "\(said)")
    }
}
