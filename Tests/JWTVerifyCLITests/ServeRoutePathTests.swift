import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Routes are isolated in the real `serve`: a path names one route exactly or is refused, over raw
/// sockets so every byte of the request line is the test's own.
@Suite("jwtverify serve route paths")
struct ServeRoutePathTests {
    /// The command line's route (audience com.example.app) plus `--config` routes of their own.
    static func routes(_ workspace: TestWorkspace, _ names: [String]) throws -> URL {
        let config = workspace.file("routes.json")
        let route =
            #"{"jwks": ["\#(workspace.jwks.path)"], "issuer": "\#(TokenFactory.issuer)", "#
            + #""audience": "com.example.web", "now": 1700001000}"#
        try (#"{"routes": {"# + names.map { "\"\($0)\": " + route }.joined(separator: ", ") + "}}")
            .write(to: config, atomically: true, encoding: .utf8)
        return config
    }

    /// A token only the `--config` routes accept (the default route wants com.example.app).
    static let web = TokenFactory.token(
        payload:
            #"{"iss":"https://appleid.apple.com","aud":"com.example.web","exp":1700003600,"iat":1700000000,"sub":"w"}"#)

    @Test("a name no route has is 404 on every endpoint, never the default route's; names are bytes")
    func unknownNames() throws {
        let workspace = try TestWorkspace()
        let config = try Self.routes(workspace, ["ios", "K1"])
        let serve = try ServeProcess(ServeTests.flags(workspace, ["--config", config.path]))
        let bearer = ServeTests.bearer(ServeTests.valid)
        #expect(try RawHTTP.request(serve.port, path: "/auth", headers: bearer).status == 200)
        #expect(try RawHTTP.request(serve.port, path: "/auth/ios", headers: ServeTests.bearer(Self.web)).status == 200)
        #expect(try RawHTTP.request(serve.port, path: "/auth/ios", headers: bearer).status == 403)
        #expect(try RawHTTP.request(serve.port, path: "/auth/K1", headers: ServeTests.bearer(Self.web)).status == 200)
        for path in [
            "/auth/typo", "/auth/default", "/auth/IOS", "/auth/\u{212A}1", "/auth/io\u{301}s", "/auth/\u{FF49}os",
        ] {
            #expect(try RawHTTP.request(serve.port, path: path, headers: bearer).status == 404, "\(path)")
        }
        for path in ["/verify/typo", "/notifications/typo", "/appstore/typo", "/verify/\u{212A}1"] {
            let answer = try RawHTTP.request(
                serve.port, method: "POST", path: path, body: Array((ServeTests.valid + "\n").utf8))
            #expect(answer.status == 404, "\(path)")
        }
        // The query is ignored, whatever it holds.
        #expect(
            try RawHTTP.request(serve.port, path: "/auth/ios?x=%2F..&route=K1", headers: ServeTests.bearer(Self.web))
                .status == 200)
        #expect(try RawHTTP.request(serve.port, path: "/auth?route=ios", headers: bearer).status == 200)
    }

    @Test("/ext-authz/NAME/...: Envoy's prefix names the route; the client's path after it never does")
    func extAuthz() throws {
        let workspace = try TestWorkspace()
        let config = try Self.routes(workspace, ["ios"])
        let serve = try ServeProcess(ServeTests.flags(workspace, ["--config", config.path]))
        let bearer = ServeTests.bearer(ServeTests.valid)
        let web = ServeTests.bearer(Self.web)
        for (path, headers, status) in [
            ("/ext-authz/default", bearer, 200), ("/ext-authz/default/app/x?y=1", bearer, 200),
            ("/ext-authz/default/ios", web, 403),  // the client's path names no route
            ("/ext-authz/default/../ios/%2F", bearer, 200), ("/ext-authz/ios/anything", web, 200),
            ("/ext-authz/ios/anything", bearer, 403), ("/ext-authz/nope/x", bearer, 404),
            ("/ext-authz/\u{212A}/x", bearer, 404), ("/ext-authz/%64efault/x", bearer, 400),
            ("/ext-authz/../x", bearer, 400), ("/ext-authz/", bearer, 400), ("/ext-authz//x", bearer, 400),
            ("/ext-authz", bearer, 400), ("/ext-authz?default/app", bearer, 400),
        ] as [(String, [(String, String)], Int)] {
            let answer = try RawHTTP.request(serve.port, path: path, headers: headers)
            #expect(answer.status == status, "\(path)")
            if status == 200 {
                #expect(answer.header("X-JWT-Sub") != nil && answer.header("Cache-Control") == "no-store", "\(path)")
            }
        }
    }

    @Test("dot segments, percent-encoding (as sent: libmicrohttpd does not undo it), empty and extra segments are 400")
    func ambiguousPaths() throws {
        let workspace = try TestWorkspace()
        let config = try Self.routes(workspace, ["ios", "a", "b"])
        let serve = try ServeProcess(ServeTests.flags(workspace, ["--config", config.path]))
        let bearer = ServeTests.bearer(Self.web)
        let refused = [
            "/auth/..", "/auth/.", "/auth/a/../b", "/auth/./a", "/auth/a/./b", "/auth/%2E%2E", "/auth/%2e",
            "/auth/a%2Fb",
            "/auth/a%2fb", "/auth/%2F", "/auth/%69os", "/auth/ios%00", "/%61uth/ios", "/auth//a", "/auth/a/", "/auth/",
            "//auth/a",
            "/auth/a/b", "/auth/ios/x", "/verify/..", "/healthz/",
        ]
        for path in refused {
            let answer = try RawHTTP.request(serve.port, path: path, headers: bearer)
            #expect(answer.status == 400, "\(path)")
            #expect(answer.header("X-JWT-Sub") == nil)
        }
        let post = try RawHTTP.request(
            serve.port, method: "POST", path: "/verify/a/../ios", body: Array((Self.web + "\n").utf8))
        #expect(post.status == 400)
        #expect(String(decoding: post.body, as: UTF8.self) == "the path has a dot segment\n")
        let encoded = try RawHTTP.request(serve.port, path: "/auth/a%2Fb", headers: bearer)
        #expect(String(decoding: encoded.body, as: UTF8.self) == "percent-encoding in the path is refused\n")
        #expect(try RawHTTP.request(serve.port, path: "/auth/a", headers: bearer).status == 200)
        #expect(try RawHTTP.request(serve.port, path: "/healthz").status == 200)
    }

    @Test("a route removed by a SIGHUP reload is 404 from that reload on; the routes left keep answering")
    func removedByReload() throws {
        let workspace = try TestWorkspace()
        let config = try Self.routes(workspace, ["ios", "web"])
        let serve = try ServeProcess(ServeTests.flags(workspace, ["--config", config.path]))
        let bearer = ServeTests.bearer(Self.web)
        #expect(try RawHTTP.request(serve.port, path: "/auth/ios", headers: bearer).status == 200)
        _ = try Self.routes(workspace, ["web"])
        serve.signal(SIGHUP)
        #expect(serve.waitForStderr("reloaded (2 routes)"))
        #expect(try RawHTTP.request(serve.port, path: "/auth/ios", headers: bearer).status == 404)
        #expect(
            try RawHTTP.request(serve.port, method: "POST", path: "/verify/ios", body: Array((Self.web + "\n").utf8))
                .status == 404)
        #expect(try RawHTTP.request(serve.port, path: "/auth/web", headers: bearer).status == 200)
        #expect(
            try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(ServeTests.valid)).status == 200)
    }

    @Test("--config refuses route names a path cannot spell: ., .., and names with %, ? or #")
    func unspellableNames() throws {
        let workspace = try TestWorkspace()
        for name in [".", "..", "a%2Fb", "a?b", "a#b"] {
            let config = try Self.routes(workspace, [name])
            let refused = try CLIRunner.run(["serve", "--config", config.path, "--listen", "127.0.0.1:0"])
            #expect(refused.status == 65, "\(name)")
            #expect(
                refused.stderr.contains("must be printable ASCII without spaces, /, %, ? or #, and not . or .."),
                "\(refused.stderr)")
        }
    }
}
