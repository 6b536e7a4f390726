import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--profile access-token` and `--scope` through the built binary: `verify`'s records, and
/// `serve`'s `/auth` answers over raw sockets.
@Suite("jwtverify access tokens")
struct CLIAccessTokenTests {
    static let issuer = "https://auth.example.com"
    static let audience = "https://api.example.com"

    /// An RFC 9068 access token (`typ` `at+jwt` unless `typ` says otherwise) with `scope`.
    static func token(scope: String = "read write", typ: String? = "at+jwt", extra: String = "") -> String {
        let header = #"{"alg":"RS256","kid":"rsa-a""# + (typ.map { #","typ":"\#($0)""# } ?? "") + "}"
        return TokenFactory.token(
            header: header,
            payload:
                #"{"iss":"\#(issuer)","aud":"\#(audience)","exp":1700003600,"iat":1700000000,"sub":"user-5","client_id":"client-9","jti":"id-1","scope":"\#(scope)"\#(extra)}"#
        )
    }

    static func flags(_ workspace: TestWorkspace, _ extra: [String] = []) -> [String] {
        [
            "--profile", "access-token", "--issuer", issuer, "--audience", audience, "--jwks", workspace.jwks.path,
            "--now", "1700001000",
        ] + extra
    }

    @Test("verify --profile access-token --scope: typed claims in the records; insufficient_scope; ID tokens refused")
    func verifyRecords() throws {
        let workspace = try TestWorkspace("access-token", keysFile: "keys.json")
        let lines = [
            Self.token(extra: #","cnf":{"x5t#S256":"NzbLsXh8"}"#), Self.token(scope: "write"), Self.token(typ: "JWT"),
            Self.token(typ: "application/at+jwt"),
        ]
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let outcome = try CLIRunner.run(["verify"] + Self.flags(workspace, ["--scope", "read"]), input: input)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        let records = outcome.records
        #expect(records.count == 4)
        #expect(records[0]["valid"] as? Bool == true, "\(records[0])")
        let claims = try #require(records[0]["claims"] as? [String: Any])
        #expect(claims["client_id"] as? String == "client-9" && claims["jti"] as? String == "id-1")
        #expect(claims["scope"] as? String == "read write" && claims["sub"] as? String == "user-5")
        #expect((claims["cnf"] as? [String: Any])?["x5t#S256"] as? String == "NzbLsXh8")
        #expect(Set(claims.keys) == ["client_id", "cnf", "jti", "scope", "sub"])
        #expect(records[1]["reason"] as? String == "insufficient_scope")
        #expect(records[1]["detail"] as? String == #"scope lacks the required "read""#)
        #expect(records[2]["reason"] as? String == "header_invalid")
        #expect(records[2]["detail"] as? String == #"an ID token, not an access token (typ "JWT")"#)
        #expect(records[3]["valid"] as? Bool == true)
        // Every --scope is required.
        let both = try CLIRunner.run(
            ["verify"] + Self.flags(workspace, ["--scope", "read", "--scope", "admin"]),
            input: Data((lines[0] + "\n").utf8))
        #expect(both.status == 1)
        #expect(both.records.first?["detail"] as? String == #"scope lacks the required "admin""#)
        // --scope is the access-token profile's setting only.
        let alone = try CLIRunner.run(
            ["verify", "--issuer", Self.issuer, "--audience", Self.audience, "--scope", "read"], input: input)
        #expect(
            alone.status == 64 && alone.stderr.contains("--scope needs --profile (it goes with --profile access-token)")
        )
        let oidc = try CLIRunner.run(
            ["verify", "--profile", "oidc", "--issuer", Self.issuer, "--audience", Self.audience, "--scope", "r"],
            input: input)
        #expect(oidc.status == 64 && oidc.stderr.contains("--scope does not go with --profile oidc"))
        let empty = try CLIRunner.run(["verify"] + Self.flags(workspace, ["--scope", ""]), input: input)
        #expect(empty.status == 64)
    }

    @Test(
        "serve /auth: 200 for a token with the scopes, 401 for an ID token, 403 insufficient_scope with its challenge")
    func serveAnswers() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(Self.flags(workspace, ["--scope", "read", "--scope", "write", "--threads", "1"]))
        func auth(_ token: String) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: "/auth", headers: [("Authorization", "Bearer \(token)")])
        }
        let ok = try auth(Self.token(scope: "write read admin"))
        #expect(ok.status == 200 && ok.header("X-JWT-Sub") == "user-5" && ok.header("WWW-Authenticate") == nil)
        let idToken = try auth(Self.token(typ: nil))
        #expect(idToken.status == 401 && idToken.header("X-JWT-Reason") == "header_invalid")
        #expect(
            idToken.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="header_invalid""#)
        let short = try auth(Self.token(scope: "read"))
        #expect(short.status == 403)
        #expect(short.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="read write""#)
        #expect(short.header("X-JWT-Reason") == "insufficient_scope" && short.header("Cache-Control") == "no-store")
        // Another service's token stays a bare 403: only insufficient_scope carries a challenge.
        let other = try auth(
            TokenFactory.token(
                header: #"{"alg":"RS256","kid":"rsa-a","typ":"at+jwt"}"#,
                payload:
                    #"{"iss":"\#(Self.issuer)","aud":"https://other.example.com","exp":1700003600,"iat":1700000000,"sub":"u","client_id":"c","jti":"j","scope":"read write"}"#
            ))
        #expect(other.status == 403 && other.header("X-JWT-Reason") == "audience_mismatch")
        #expect(other.header("WWW-Authenticate") == nil)
        #expect(try RawHTTP.request(serve.port, path: "/auth").status == 401)
    }

    @Test("serve --config: a route's \"scope\" list, and the realm in the challenge")
    func serveConfigRoute() throws {
        let workspace = try TestWorkspace()
        let config = workspace.file("routes.json")
        try #"""
        {"routes": {"api": {"profile": "access-token", "issuer": "\#(Self.issuer)", "audience": "\#(Self.audience)",
          "jwks": ["\#(workspace.jwks.path)"], "scope": ["admin"], "now": 1700001000, "realm": "api"}}}
        """#.write(to: config, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(ServeTests.flags(workspace, ["--config", config.path]))
        func auth(_ token: String) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: "/auth/api", headers: [("Authorization", "Bearer \(token)")])
        }
        #expect(try auth(Self.token(scope: "admin")).status == 200)
        let short = try auth(Self.token(scope: "read"))
        #expect(short.status == 403)
        #expect(short.header("WWW-Authenticate") == #"Bearer realm="api", error="insufficient_scope", scope="admin""#)
        // The default route has no profile: an at+jwt token is not its kind of token.
        let plain = try RawHTTP.request(
            serve.port, path: "/auth", headers: ServeTests.bearer(Self.token(scope: "admin")))
        #expect(plain.status == 401 && plain.header("X-JWT-Reason") == "header_invalid")
    }
}
