import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// The rules of `serve`'s `/auth` answers that a gateway relies on, through the real binary over
/// raw sockets: every identity header on a 200 (empty where the claim is absent), one credential
/// or a 400, and the `Cache-Control` of every answer.
@Suite("jwtverify serve: identity headers, credentials, cache rule")
struct ServeHeaderRulesTests {
    static let noSubject = TokenFactory.token(
        payload: #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":1700000000}"#)

    @Test("a 200 carries every configured header on the wire, empty where the token lacks the claim")
    func everyHeader() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(
            ServeTests.flags(
                workspace, ["--claim-header", "email=X-User-Email", "--claim-header", "groups=X-User-Groups"]))
        let answer = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(Self.noSubject))
        #expect(answer.status == 200)
        #expect(
            answer.headers.filter { $0.0.hasPrefix("X-") }.map(\.0)
                == [
                    "X-JWT-Sub", "X-JWT-Iss", "X-JWT-Aud", "X-JWT-Exp", "X-JWT-Kid", "X-JWT-Alg", "X-User-Email",
                    "X-User-Groups",
                ])
        #expect(answer.header("X-JWT-Sub") == "")
        #expect(answer.header("X-User-Email") == "")
        #expect(answer.header("X-User-Groups") == "")
        #expect(answer.header("X-JWT-Iss") == TokenFactory.issuer)
        let full = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(ServeTests.valid))
        #expect(full.header("X-User-Email") == "a@example.com")
        #expect(full.header("X-User-Groups") == "admin,ops")
    }

    @Test(
        "two Authorization headers, two of a token place, a token in two places: 400 invalid_request, never a pick"
    )
    func ambiguousCredentials() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(
            ServeTests.flags(
                workspace,
                ["--token-header", "X-Id-Token", "--token-cookie", "session", "--realm", "example", "--access-log"]))
        let other = TokenFactory.token(payload: TokenFactory.claims(extra: #""email":"b@example.com""#))
        let bearer = ("Authorization", "Bearer \(ServeTests.valid)")
        let cases: [(String, [(String, String)])] = [
            ("two Authorization headers", [bearer, ("authorization", "Bearer \(other)")]),
            ("one token, twice", [bearer, bearer]),
            ("Authorization and X-Id-Token", [bearer, ("X-Id-Token", other)]),
            ("Authorization and the cookie", [bearer, ("Cookie", "session=\(other)")]),
            (
                "X-Id-Token and the cookie",
                [("X-Id-Token", ServeTests.valid), ("Cookie", "theme=dark; session=\(ServeTests.valid)")]
            ),
            ("two X-Id-Token headers", [("X-Id-Token", ServeTests.valid), ("x-id-token", other)]),
            ("two session cookies", [("Cookie", "session=\(ServeTests.valid); theme=dark; session=\(other)")]),
            ("two Cookie headers", [("Cookie", "theme=dark"), ("Cookie", "session=\(other)")]),
        ]
        for (what, headers) in cases {
            let answer = try RawHTTP.request(serve.port, path: "/auth", headers: headers)
            #expect(answer.status == 400, "\(what)")
            #expect(answer.header("WWW-Authenticate") == #"Bearer realm="example", error="invalid_request""#, "\(what)")
            #expect(answer.header("X-JWT-Reason") == "invalid_request", "\(what)")
            #expect(answer.header("Cache-Control") == "no-store", "\(what)")
            #expect(answer.header("X-JWT-Sub") == nil, "\(what)")
        }
        #expect(serve.waitForStderr(#""status":400,"reason":"invalid_request""#), "\(serve.stderr)")
        // One token in one place, with other credentials that are no bearer token, is answered.
        for headers in [
            [bearer, ("Cookie", "theme=dark")], [("Authorization", "Basic dTpw"), ("X-Id-Token", ServeTests.valid)],
            [("Cookie", "theme=dark; session=\(ServeTests.valid)")],
        ] {
            let answer = try RawHTTP.request(serve.port, path: "/auth", headers: headers)
            #expect(answer.status == 200, "\(headers.map(\.0))")
            #expect(answer.header("X-JWT-Sub") == "001234.abc.1234")
        }
    }

    @Test(
        "Cache-Control: no-store on /auth and /verify; --cache-control-max-age on a 200 only, never past exp"
    )
    func cacheRule() throws {
        let workspace = try TestWorkspace()
        let expired = TokenFactory.token(payload: TokenFactory.claims(exp: "1700000100"))
        let plain = try ServeProcess(ServeTests.flags(workspace))
        for (path, method, headers, body, status) in [
            ("/auth", "GET", ServeTests.bearer(ServeTests.valid), "", 200),
            ("/auth", "GET", ServeTests.bearer(expired), "", 401),
            ("/auth", "GET", [], "", 401), ("/auth/x", "HEAD", ServeTests.bearer(ServeTests.valid), "", 404),
            ("/verify", "POST", [], ServeTests.valid + "\n", 200), ("/verify", "POST", [], "hello\n", 400),
            ("/auth", "DELETE", [], "", 405),
        ] as [(String, String, [(String, String)], String, Int)] {
            let answer = try RawHTTP.request(
                plain.port, method: method, path: path, headers: headers, body: Array(body.utf8))
            #expect(answer.status == status, "\(method) \(path)")
            #expect(
                answer.headers.filter { $0.0 == "Cache-Control" }.map(\.1) == ["no-store"],
                "\(method) \(path): \(answer.headers)")
        }
        // --now 1700001000, exp 1700003600: 2600 s left.
        for (maxAge, expected) in [("300", "private, max-age=300"), ("5000", "private, max-age=2600")] {
            let serve = try ServeProcess(ServeTests.flags(workspace, ["--cache-control-max-age", maxAge]))
            #expect(
                try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(ServeTests.valid)).header(
                    "Cache-Control") == expected)
            for headers in [
                ServeTests.bearer(expired), [],
                ServeTests.bearer(ServeTests.valid) + ServeTests.bearer(ServeTests.valid),
            ] {
                let refused = try RawHTTP.request(serve.port, path: "/auth", headers: headers)
                #expect(refused.status != 200)
                #expect(refused.header("Cache-Control") == "no-store")
            }
            let verify = try RawHTTP.request(
                serve.port, method: "POST", path: "/verify", body: Array((ServeTests.valid + "\n").utf8))
            #expect(verify.header("Cache-Control") == "no-store")
        }
        // The same per route in --config; a route without it stays no-store.
        let config = workspace.file("routes.json")
        try #"""
        {"routes": {
          "kept": {"jwks": ["\#(workspace.jwks.path)"], "issuer": "\#(TokenFactory.issuer)",
                   "audience": "com.example.app", "now": 1700001000,
                   "cache_control_max_age": 60},
          "fresh": {"jwks": ["\#(workspace.jwks.path)"], "issuer": "\#(TokenFactory.issuer)",
                    "audience": "com.example.app", "now": 1700001000}
        }}
        """#.write(to: config, atomically: true, encoding: .utf8)
        let routed = try ServeProcess(["--config", config.path])
        #expect(
            try RawHTTP.request(routed.port, path: "/auth/kept", headers: ServeTests.bearer(ServeTests.valid)).header(
                "Cache-Control")
                == "private, max-age=60")
        #expect(
            try RawHTTP.request(routed.port, path: "/auth/fresh", headers: ServeTests.bearer(ServeTests.valid)).header(
                "Cache-Control") == "no-store")
        let refused = try CLIRunner.run([
            "serve", "--jwks", workspace.jwks.path, "--issuer", "x", "--audience", "y", "--cache-control-max-age", "0",
        ])
        #expect(refused.status == 64)
        #expect(
            refused.stderr.contains("--cache-control-max-age needs a whole number from 1 to 31536000"),
            "\(refused.stderr)")
    }
}
