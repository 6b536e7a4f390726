import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `--require-claim PATH=VALUE` and dotted `--claim-header` through the built binary: `verify`,
/// `audit` and `inspect` verdicts, and `serve`'s `/auth` answers over raw sockets.
@Suite("jwtverify claim rules")
struct CLIClaimRuleTests {
    /// A token with Keycloak's nested roles and a namespaced claim.
    static func token(roles: String = #"["reader","admin"]"#, sub: String = "user-5") -> String {
        TokenFactory.token(
            payload: TokenFactory.claims(
                extra: #""realm_access":{"roles":\#(roles)},"https://example.com/tier":"gold","email_verified":true"#
            ).replacingOccurrences(of: "001234.abc.1234", with: sub))
    }

    static func flags(_ workspace: TestWorkspace, _ extra: [String] = []) -> [String] {
        [
            "--jwks", workspace.jwks.path, "--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience,
            "--now", "1700001000",
        ] + extra
    }

    @Test("verify, audit and inspect: every rule must hold, else claim_mismatch with the rule that failed")
    func verdicts() throws {
        let workspace = try TestWorkspace("claim-rules", keysFile: "keys.json")
        let lines = [Self.token(), Self.token(roles: #"["reader"]"#), Self.token(sub: "user-6")]
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let rules = [
            "--require-claim", "realm_access.roles=admin", "--require-claim", "sub=user-5", "--require-claim",
            #"https://example\.com/tier=gold"#, "--require-claim", "email_verified=true",
        ]
        let verify = try CLIRunner.run(["verify"] + Self.flags(workspace, rules), input: input)
        #expect(verify.status == 1, "\(verify.stderr)")
        let expected: [(Bool, String?, String?)] = [
            (true, nil, nil), (false, "claim_mismatch", #"claim "realm_access.roles" does not contain "admin""#),
            (false, "claim_mismatch", #"claim "sub" is not "user-5""#),
        ]
        #expect(verify.records.count == 3)
        for (record, (valid, reason, detail)) in zip(verify.records, expected) {
            #expect(record["valid"] as? Bool == valid && record["reason"] as? String == reason, "\(record)")
            #expect(record["detail"] as? String == detail)
        }
        // audit: the same verdicts, in the same words.
        let log = workspace.file("tokens.log")
        try input.write(to: log)
        let audit = try CLIRunner.run(["audit", "--format", "jsonl"] + Self.flags(workspace, rules) + [log.path])
        #expect(audit.records.map { $0["reason"] as? String } == verify.records.map { $0["reason"] as? String })
        #expect(audit.records.map { $0["detail"] as? String } == verify.records.map { $0["detail"] as? String })
        // inspect names the failing check.
        let inspect = try CLIRunner.run(["inspect", lines[1]] + Self.flags(workspace, rules))
        #expect(
            inspect.status == 1 && inspect.stdoutText.hasPrefix("REJECTED: claim_mismatch"), "\(inspect.stdoutText)")
        #expect(try CLIRunner.run(["inspect", lines[0]] + Self.flags(workspace, rules)).status == 0)
    }

    @Test("--require-claim without PATH=VALUE, or with an empty name or a dangling escape, is a usage error")
    func usage() throws {
        let workspace = try TestWorkspace("claim-rules-usage", keysFile: "keys.json")
        for bad in ["roles", "=admin", "a..b=x", #"a\=x"#] {
            let outcome = try CLIRunner.run(
                ["verify"] + Self.flags(workspace, ["--require-claim", bad]), input: Data())
            #expect(outcome.status == 64, "\(bad)")
            #expect(outcome.stderr.contains("--require-claim takes PATH=VALUE"), "\(outcome.stderr)")
        }
    }

    @Test("serve: 403 with a Bearer insufficient_scope challenge for claim_mismatch; dotted claim headers")
    func serve() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(
            ServeTests.flags(
                workspace,
                [
                    "--require-claim", "realm_access.roles=admin", "--claim-header", "realm_access.roles=X-Roles",
                    "--claim-header", #"https://example\.com/tier=X-Tier"#, "--claim-header", "realm_access.x=X-None",
                ]))
        let ok = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(Self.token()))
        #expect(ok.status == 200)
        #expect(ok.header("X-Roles") == "reader,admin" && ok.header("X-Tier") == "gold" && ok.header("X-None") == "")
        let refused = try RawHTTP.request(
            serve.port, path: "/auth", headers: ServeTests.bearer(Self.token(roles: #"["reader"]"#)))
        #expect(refused.status == 403 && refused.header("X-JWT-Reason") == "claim_mismatch")
        #expect(refused.header("WWW-Authenticate") == #"Bearer error="insufficient_scope""#)
        #expect(refused.header("X-Roles") == nil)
    }

    @Test("serve --config: a route's \"require_claim\" list; a scope-requiring route names its scopes")
    func serveConfig() throws {
        let workspace = try TestWorkspace()
        let config = workspace.file("routes.json")
        let issuer = CLIAccessTokenTests.issuer
        try #"""
        {"routes": {
          "admin": {"jwks": ["\#(workspace.jwks.path)"], "issuer": "\#(TokenFactory.issuer)",
            "audience": "\#(TokenFactory.audience)", "require_claim": ["realm_access.roles=admin", "sub=user-5"],
            "now": 1700001000},
          "api": {"profile": "access-token", "issuer": "\#(issuer)", "audience": "\#(CLIAccessTokenTests.audience)",
            "jwks": ["\#(workspace.jwks.path)"], "scope": ["read"], "require_claim": "client_id=client-1",
            "now": 1700001000}}}
        """#.write(to: config, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(ServeTests.flags(workspace, ["--config", config.path]))
        func auth(_ route: String, _ token: String) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: "/auth/" + route, headers: ServeTests.bearer(token))
        }
        #expect(try auth("admin", Self.token()).status == 200)
        let other = try auth("admin", Self.token(sub: "user-6"))
        #expect(other.status == 403 && other.header("X-JWT-Reason") == "claim_mismatch")
        // The access-token route: its scope passes, its claim rule fails; the challenge names the scope.
        let access = try auth("api", CLIAccessTokenTests.token(scope: "read"))
        #expect(access.status == 403 && access.header("X-JWT-Reason") == "claim_mismatch")
        #expect(access.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="read""#)
    }
}
