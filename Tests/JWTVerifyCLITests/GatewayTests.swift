import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve` behind the real gateways users run, from Debian: nginx `auth_request` and Caddy
/// `forward_auth`, with the README's recipes extracted as printed (only the ports changed) and put
/// in front of a backend that records every header it receives (`recording_backend.py`), and
/// Prometheus's `promtool` reading a live `/metrics`. Each program runs on free loopback ports and
/// is stopped afterwards.
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
            process.standardError = try FileHandle(
                forWritingTo: Self.touch(directory.appendingPathComponent("stderr.log")))
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

    /// The README's fenced `language` blocks of section `heading`, as printed, with serve's
    /// default address (`127.0.0.1:8080`) and the example backend's (`127.0.0.1:3000`) made the
    /// test's ports: nothing else is changed.
    static func recipe(_ language: String, under heading: String, servePort: Int, backendPort: Int) throws -> [String] {
        let blocks = try ReadmeSnippet.blocks(language, under: heading)
        #expect(!blocks.isEmpty, "the README's section \(heading) has no \(language) block")
        return blocks.map {
            $0.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(servePort)")
                .replacingOccurrences(of: "127.0.0.1:3000", with: "127.0.0.1:\(backendPort)")
        }
    }

    /// nginx on a free port with the README's two nginx blocks in front of `serve` and `backend`.
    static func nginx(in workspace: TestWorkspace, before serve: ServeProcess, backend: Int) throws -> (
        port: Int, nginx: Running
    ) {
        let port = ExternalProgram.freePort()
        let blocks = try recipe("nginx", under: "nginx", servePort: serve.port, backendPort: backend)
        try #require(
            blocks.count == 2,
            "the README's nginx section has \(blocks.count) nginx blocks, not 2 (http { }, server { })")
        #expect(blocks[0].contains("upstream jwtverify") && blocks[0].contains("127.0.0.1:\(serve.port)"))
        #expect(blocks[1].contains("auth_request") && blocks[1].contains("127.0.0.1:\(backend)"))
        try blocks[0].write(to: workspace.file("jwtverify-http.conf"), atomically: true, encoding: .utf8)
        try blocks[1].write(to: workspace.file("jwtverify-server.conf"), atomically: true, encoding: .utf8)
        let config = try Self.render("nginx.conf", ["DIR": workspace.directory.path, "PORT": "\(port)"])
        try config.write(to: workspace.file("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try Running(
            ExternalProgram.path("nginx")!, ["-p", workspace.directory.path, "-c", workspace.file("nginx.conf").path],
            directory: workspace.directory)
        #expect(
            ExternalProgram.waitForPort(port),
            "nginx did not start: \((try? String(contentsOf: workspace.file("error.log"), encoding: .utf8)) ?? "")")
        return (port, nginx)
    }

    /// Caddy on a free port with the README's Caddy block in front of `serve` and `backend`.
    static func caddy(in workspace: TestWorkspace, before serve: ServeProcess, backend: Int) throws -> (
        port: Int, caddy: Running
    ) {
        let port = ExternalProgram.freePort()
        let blocks = try recipe("caddyfile", under: "Caddy", servePort: serve.port, backendPort: backend)
        try #require(blocks.count == 1, "the README's Caddy section has \(blocks.count) caddyfile blocks, not 1")
        #expect(blocks[0].contains("forward_auth 127.0.0.1:\(serve.port)"))
        try blocks[0].write(to: workspace.file("jwtverify.caddy"), atomically: true, encoding: .utf8)
        try Self.render(
            "Caddyfile", ["DIR": workspace.directory.path, "PORT": "\(port)", "BACKEND_PORT": "\(backend)"]
        ).write(
            to: workspace.file("Caddyfile"), atomically: true, encoding: .utf8)
        let home = workspace.directory.path
        let caddy = try Running(
            ExternalProgram.path("caddy")!,
            ["run", "--config", workspace.file("Caddyfile").path, "--adapter", "caddyfile"],
            environment: ["HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home, "PATH": "/usr/bin:/bin"],
            directory: workspace.directory)
        #expect(
            ExternalProgram.waitForPort(port),
            "caddy did not start: \((try? String(contentsOf: workspace.file("stderr.log"), encoding: .utf8)) ?? "")")
        return (port, caddy)
    }

    /// serve as the README's recipes expect it: `--claim-header email=X-User-Email`, and a token
    /// cookie too, so that a token in two places can be sent through the gateway.
    static func serve() throws -> (TestWorkspace, ServeProcess) {
        let workspace = try TestWorkspace()
        return (
            workspace,
            try ServeProcess(
                ServeTests.flags(workspace, ["--claim-header", "email=X-User-Email", "--token-cookie", "session"]))
        )
    }

    // MARK: What the backend sees

    /// What the recording backend answered: every header line it received, as it arrived.
    struct Seen {
        let headers: [(name: String, value: String)]

        /// `nil` when the answer is not the backend's (the gateway refused, the backend never saw it).
        init?(_ response: RawHTTP.Response) {
            guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
                let lines = object["headers"] as? [[String]]
            else { return nil }
            headers = lines.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        }

        /// A header name as CGI, WSGI, Rack and PHP read it: `X_User-email` is `HTTP_X_USER_EMAIL`.
        static func cgi(_ name: String) -> String {
            "HTTP_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        }

        /// The identity headers (`X-JWT-…`, `X-User-…` in any spelling) with a value, by their CGI
        /// name, sorted: an empty one says nothing, as an absent one.
        var identity: [String] {
            headers.filter {
                !$0.value.isEmpty
                    && (Self.cgi($0.name).hasPrefix("HTTP_X_JWT_") || Self.cgi($0.name).hasPrefix("HTTP_X_USER_"))
            }
            .map { "\(Self.cgi($0.name))=\($0.value)" }.sorted()
        }

        /// The environment variable a CGI/WSGI backend reads for `name`: repeats comma-joined.
        func environment(_ name: String) -> String? {
            let values = headers.filter { Self.cgi($0.name) == Self.cgi(name) }.map(\.value)
            return values.isEmpty ? nil : values.joined(separator: ",")
        }
    }

    /// Forged identity headers in every spelling: hyphens, underscores, mixed, any case, repeated.
    static let forged: [(String, String)] = [
        ("X-User-Email", "admin@evil"), ("X_User_Email", "admin@evil"), ("x-user_email", "admin@evil"),
        ("X-User-Email", "second@evil"),
        ("x-jwt-sub", "someone-else"), ("X_JWT_Sub", "someone-else"), ("X-JWT-Sub", "again-evil"),
        ("X-JWT_Sub", "mixed-evil"),
        ("X-JWT-Iss", "https://evil"), ("X_JWT_Iss", "https://evil"), ("X-JWT-Aud", "evil"), ("x_jwt_aud", "evil"),
        ("X-JWT-Exp", "9999999999"), ("X-JWT-Kid", "evil"), ("X-JWT_Kid", "evil"), ("X-JWT-Alg", "none-evil"),
        ("X-JWT-Reason", "forged-evil"), ("X_JWT_Reason", "forged-evil"),
    ]

    /// Valid tokens with and without `sub` and `email`, and the identity the backend must see
    /// for each: the verified values only.
    static let cases: [(what: String, token: String, identity: [String])] = {
        let always = [
            "HTTP_X_JWT_ALG=RS256", "HTTP_X_JWT_AUD=\(TokenFactory.audience)", "HTTP_X_JWT_EXP=1700003600",
            "HTTP_X_JWT_ISS=\(TokenFactory.issuer)", "HTTP_X_JWT_KID=rsa-a",
        ]
        let noSub = #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":1700000000"#
        return [
            (
                "sub and email", ServeTests.valid,
                always + ["HTTP_X_JWT_SUB=001234.abc.1234", "HTTP_X_USER_EMAIL=a@example.com"]
            ),
            (
                "sub, no email", TokenFactory.token(payload: TokenFactory.claims()),
                always + ["HTTP_X_JWT_SUB=001234.abc.1234"]
            ),
            (
                "email, no sub", TokenFactory.token(payload: noSub + #","email":"b@example.com"}"#),
                always + ["HTTP_X_USER_EMAIL=b@example.com"]
            ),
            ("neither sub nor email", TokenFactory.token(payload: noSub + "}"), always),
        ].map { ($0.0, $0.1, $0.2.sorted()) }
    }()

    /// Sends each valid token with every forged header through the gateway on `port`, and checks
    /// that the backend saw exactly the verified identity: never a forged value, never a
    /// placeholder's text, never a forged value joined to the real one. A claim the token lacks
    /// arrives as one empty header when `emptyWhenAbsent`, else as none.
    static func expectVerifiedIdentityOnly(through port: Int, gateway: String, emptyWhenAbsent: Bool) throws {
        for (what, token, identity) in cases {
            for forged in [Self.forged, Self.forged.reversed()] {
                let response = try RawHTTP.request(
                    port, path: "/app", headers: forged + ServeTests.bearer(token) + forged)
                #expect(response.status == 200, "\(gateway), \(what): \(response.status) \(response.text)")
                guard let seen = Seen(response) else {
                    Issue.record("\(gateway), \(what): not the backend's answer: \(response.text)")
                    continue
                }
                #expect(seen.identity == identity, "\(gateway), \(what): the backend saw \(seen.headers)")
                // A claim the token lacks: no header, or one empty header (Caddy before 2.9), never two.
                let empty = seen.headers.filter { $0.value.isEmpty }.map { Seen.cgi($0.name) }.sorted()
                let absent = ["HTTP_X_JWT_SUB", "HTTP_X_USER_EMAIL"].filter { name in
                    !identity.contains { $0.hasPrefix(name + "=") }
                }
                #expect(empty == (emptyWhenAbsent ? absent : []), "\(gateway), \(what): \(seen.headers)")
                for (name, value) in seen.headers {
                    #expect(
                        !value.contains("evil") && !value.contains("someone-else") && !value.contains("{"),
                        "\(gateway), \(what): \(name): \(value)")
                }
                let email = identity.first { $0.hasPrefix("HTTP_X_USER_EMAIL=") }.map {
                    String($0.dropFirst("HTTP_X_USER_EMAIL=".count))
                }
                let sub = identity.first { $0.hasPrefix("HTTP_X_JWT_SUB=") }.map {
                    String($0.dropFirst("HTTP_X_JWT_SUB=".count))
                }
                // What a WSGI backend reads: the verified value alone, or nothing (absent or empty).
                #expect(
                    seen.environment("X-User-Email").flatMap { $0.isEmpty ? nil : $0 } == email, "\(gateway), \(what)")
                #expect(seen.environment("X-JWT-Sub").flatMap { $0.isEmpty ? nil : $0 } == sub, "\(gateway), \(what)")
                #expect(seen.environment("X-JWT-Reason") == nil, "\(gateway), \(what)")
            }
        }
    }

    /// A refused request with forged headers never reaches the backend, and the client gets
    /// serve's challenge and reason.
    static func expectRefusals(through port: Int, gateway: String) throws {
        let expired = try RawHTTP.request(
            port, path: "/app",
            headers: Self.forged
                + ServeTests.bearer(TokenFactory.token(payload: TokenFactory.claims(exp: "1700000100"))))
        #expect(expired.status == 401, "\(gateway)")
        #expect(
            expired.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="expired""#,
            "\(gateway)")
        #expect(expired.header("X-JWT-Reason") == "expired", "\(gateway)")
        #expect(Seen(expired) == nil, "\(gateway): the backend was reached")
        let none = try RawHTTP.request(port, path: "/app", headers: Self.forged)
        #expect(none.status == 401, "\(gateway)")
        #expect(none.header("WWW-Authenticate") == "Bearer", "\(gateway)")
        #expect(Seen(none) == nil, "\(gateway): the backend was reached")
        let elsewhere = TokenFactory.token(
            payload: #"{"iss":"https://appleid.apple.com","aud":"other","exp":1700003600,"iat":1700000000,"sub":"s"}"#)
        let forbidden = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(elsewhere))
        #expect(forbidden.status == 403, "\(gateway)")
        #expect(forbidden.header("X-JWT-Reason") == "audience_mismatch", "\(gateway)")
        #expect(Seen(forbidden) == nil, "\(gateway): the backend was reached")
    }

    @Test(
        "nginx, the README's recipe as printed: the backend sees the verified identity only, whatever is forged",
        .enabled(if: ExternalProgram.path("nginx") != nil, ExternalProgram.missing("nginx")))
    func nginx() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, nginx) = try Self.nginx(in: workspace, before: serve, backend: backend.port)
        try Self.expectVerifiedIdentityOnly(through: port, gateway: "nginx", emptyWhenAbsent: false)
        try Self.expectRefusals(through: port, gateway: "nginx")
        let ok = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(ServeTests.valid))
        #expect(ok.header("X-JWT-Reason") == nil)
        withExtendedLifetime((nginx, backend)) {}
    }

    @Test(
        "nginx: two credentials never reach the backend (nginx's own 400, or serve's 400 made 500)",
        .enabled(if: ExternalProgram.path("nginx") != nil, ExternalProgram.missing("nginx")))
    func nginxAmbiguous() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, nginx) = try Self.nginx(in: workspace, before: serve, backend: backend.port)
        let other = TokenFactory.token(payload: TokenFactory.claims(extra: #""email":"b@example.com""#))
        let two = try RawHTTP.request(
            port, path: "/app", headers: ServeTests.bearer(ServeTests.valid) + ServeTests.bearer(other))
        #expect(two.status == 400)
        #expect(Seen(two) == nil)
        let places = try RawHTTP.request(
            port, path: "/app", headers: ServeTests.bearer(ServeTests.valid) + [("Cookie", "session=\(other)")])
        #expect(places.status == 500)
        #expect(Seen(places) == nil)
        #expect(
            try RawHTTP.request(port, path: "/app", headers: [("Cookie", "theme=dark; session=\(other)")]).status == 200
        )
        withExtendedLifetime((nginx, backend)) {}
    }

    @Test(
        "behind nginx's kept-alive upstream connections, SIGTERM stops serve at once (the drain allows 10 s)",
        .enabled(if: ExternalProgram.path("nginx") != nil, ExternalProgram.missing("nginx")))
    func stopsWithKeptAliveConnections() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, nginx) = try Self.nginx(in: workspace, before: serve, backend: backend.port)
        // Several requests at once, so that nginx keeps several upstream connections to serve alive.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<4 {
                _ = try? RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(ServeTests.valid))
            }
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
        withExtendedLifetime((nginx, backend)) {}
    }

    @Test(
        "Caddy 2.6, the README's recipe as printed: the verified identity only, no placeholder, nothing joined",
        .enabled(if: ExternalProgram.path("caddy") != nil, ExternalProgram.missing("caddy")))
    func caddy() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, caddy) = try Self.caddy(in: workspace, before: serve, backend: backend.port)
        // Caddy before 2.9 sets a copied header even when serve's is empty (the README's table).
        try Self.expectVerifiedIdentityOnly(
            through: port, gateway: "caddy", emptyWhenAbsent: Self.caddyCopiesEmptyHeaders())
        try Self.expectRefusals(through: port, gateway: "caddy")
        var parts = ServeTests.valid.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(TokenFactory.claims(extra: #""admin":true"#).utf8))
        let tampered = try RawHTTP.request(port, path: "/app", headers: ServeTests.bearer(parts.joined(separator: ".")))
        #expect(tampered.status == 401)
        #expect(
            tampered.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="bad_signature""#)
        #expect(tampered.header("X-JWT-Reason") == "bad_signature")
        withExtendedLifetime((caddy, backend)) {}
    }

    /// Whether the installed Caddy is older than 2.9, whose `copy_headers` sets a header that
    /// serve sent empty (2.9 and later leave it out).
    static func caddyCopiesEmptyHeaders() throws -> Bool {
        let (_, said) = try ExternalProgram.run(ExternalProgram.path("caddy")!, ["version"])
        let version = said.drop { $0 == "v" }.split(separator: " ").first ?? ""
        let parts = version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count >= 2, "caddy version said \(said)")
        return parts.count >= 2 && parts[0] == 2 && parts[1] < 9
    }

    @Test(
        "Caddy forwards two credentials: serve answers 400 invalid_request, which Caddy passes on",
        .enabled(if: ExternalProgram.path("caddy") != nil, ExternalProgram.missing("caddy")))
    func caddyAmbiguous() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, caddy) = try Self.caddy(in: workspace, before: serve, backend: backend.port)
        let other = TokenFactory.token(payload: TokenFactory.claims(extra: #""email":"b@example.com""#))
        for headers in [
            ServeTests.bearer(ServeTests.valid) + ServeTests.bearer(other),
            ServeTests.bearer(ServeTests.valid) + [("Cookie", "session=\(other)")],
        ] {
            let answer = try RawHTTP.request(port, path: "/app", headers: headers)
            #expect(answer.status == 400)
            #expect(answer.header("WWW-Authenticate") == #"Bearer error="invalid_request""#)
            #expect(answer.header("X-JWT-Reason") == "invalid_request")
            #expect(answer.header("Cache-Control") == "no-store")
            #expect(Seen(answer) == nil)
        }
        let cookie = try RawHTTP.request(port, path: "/app", headers: [("Cookie", "theme=dark; session=\(other)")])
        #expect(cookie.status == 200)
        #expect(Seen(cookie)?.identity.contains("HTTP_X_USER_EMAIL=b@example.com") == true)
        withExtendedLifetime((caddy, backend)) {}
    }

    @Test(
        "the README's Traefik and Envoy recipes clear every spelling of serve's headers (text only: neither runs here)"
    )
    func untestedRecipes() throws {
        let names = [
            "X-JWT-Sub", "X-JWT-Iss", "X-JWT-Aud", "X-JWT-Exp", "X-JWT-Kid", "X-JWT-Alg", "X-JWT-Reason",
            "X-User-Email",
        ]
        func spellings(_ name: String) -> [String] {
            [
                name, name.lowercased(), name.uppercased(), name.replacingOccurrences(of: "-", with: "_"),
                String(name.prefix(5)) + name.dropFirst(5).replacingOccurrences(of: "-", with: "_"),
                name.prefix(1) + "_" + name.dropFirst(2),
            ]
        }
        let traefik = try ReadmeSnippet.blocks("yaml", under: "Traefik")
        try #require(traefik.count == 1)
        let pattern = try #require(
            traefik[0].split(separator: "\n").first { $0.contains("authResponseHeadersRegex:") }?
                .split(separator: "\"", omittingEmptySubsequences: false).dropFirst().first)
        #expect(traefik[0].contains(#"address: "http://127.0.0.1:8080/auth""#))
        // Go's regexp and ICU agree on this much: (?i), classes, alternation, anchors.
        let regex = try NSRegularExpression(pattern: String(pattern))
        func matches(_ name: String) -> Bool {
            regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
        for name in names {
            for spelling in spellings(name) + [String(name.prefix(1)) + name.dropFirst(1).lowercased()] {
                #expect(matches(spelling), "Traefik's regex lets \(spelling) through")
            }
        }
        for other in ["Authorization", "Cookie", "Host", "X-Forwarded-For", "X-Request-Id", "User-Agent"] {
            #expect(!matches(other), "\(other)")
        }

        let envoy = try ReadmeSnippet.blocks("yaml", under: "Envoy")
        try #require(envoy.count == 1)
        let removed = Set(
            envoy[0].split(separator: "\n").compactMap { line -> String? in
                let text = line.trimmingCharacters(in: .whitespaces)
                return text.hasPrefix("- remove: ") ? String(text.dropFirst("- remove: ".count)) : nil
            })
        #expect(removed == Set(names.map { $0.lowercased() }))
        #expect(envoy[0].contains("headers_with_underscores_action: DROP_HEADER"))
        #expect(envoy[0].contains("path_prefix: /ext-authz/default"))
        #expect(envoy[0].contains(#"uri: "http://127.0.0.1:8080""#))
        // The filters run in order: the removal first, then the check, then the router.
        let order = ["envoy.filters.http.header_mutation", "envoy.filters.http.ext_authz", "envoy.filters.http.router"]
            .map {
                envoy[0].range(of: "name: \($0)")?.lowerBound
            }
        #expect(order.allSatisfy { $0 != nil } && order.map { $0! } == order.map { $0! }.sorted())
        #expect(!(try ReadmeSnippet.readme()).contains("{{"), "the README shows a template placeholder")
    }

    @Test(
        "promtool check metrics passes on a live /metrics with every family populated",
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
        for family in [
            "jwtverify_verifications_total", "jwtverify_verification_duration_seconds_bucket",
            "jwtverify_http_responses_total",
            "jwtverify_token_cache_hits_total", "jwtverify_keys", "jwtverify_keys_age_seconds",
        ] {
            #expect(metrics.text.contains("\n\(family){"), "\(family)")
        }
        #expect(metrics.text.contains(#"jwtverify_token_cache_hits_total{route="default"} 1"#))
        // A request without a token counts as a gateway check too, beside the HTTP status.
        #expect(
            metrics.text.contains(#"jwtverify_verifications_total{route="default",result="no_token",reason="none"} 1"#),
            "\(metrics.text)")
        #expect(
            metrics.text.contains(#"jwtverify_verifications_total{route="default",result="valid",reason="none"} 2"#))
        let input = workspace.file("metrics.txt")
        try metrics.body.write(to: input)
        let (status, said) = try ExternalProgram.run(
            ExternalProgram.path("promtool")!, ["check", "metrics"], input: input)
        #expect(status == 0, "\(said)")
        #expect(said.isEmpty, "\(said)")
    }
}
