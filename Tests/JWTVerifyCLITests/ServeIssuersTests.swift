import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// A `serve --config` route with several issuers (`"issuers"`): each token verified by the one
/// entry whose issuer is its `iss`, byte for byte, with that entry's keys, audiences and rules.
@Suite("serve routes with several issuers")
struct ServeIssuersTests {
    static let issuerA = "https://a.example.com"
    static let issuerB = "https://b.example.com"

    /// A token of `issuer` for `audience`, signed by `signer`.
    static func token(
        _ issuer: String, audience: String = "api", signer: TokenFactory.Signer = TokenFactory.rsa, extra: String = ""
    ) -> String {
        TokenFactory.token(
            payload:
                #"{"iss":"\#(issuer)","aud":"\#(audience)","exp":1700003600,"iat":1700000000,"sub":"u-1"\#(extra)}"#,
            signer: signer)
    }

    /// A workspace whose issuer A trusts the RSA key only and issuer B the EC key only.
    static func config(_ workspace: TestWorkspace, route extra: String = "") throws -> URL {
        try "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}".write(
            to: workspace.file("a.json"), atomically: true, encoding: .utf8)
        try "{\"keys\":[\(TokenFactory.ec.jwkJSON)]}".write(
            to: workspace.file("b.json"), atomically: true, encoding: .utf8)
        let config = workspace.file("routes.json")
        try #"""
        {"routes": {"api": {"now": 1700001000, "claim_header": ["sub=X-User"]\#(extra), "issuers": [
          {"issuer": "\#(issuerA)", "jwks": ["a.json"], "audience": "api", "require_claim": "sub=u-1"},
          {"issuer": "\#(issuerB)", "jwks": ["b.json"], "audience": ["api", "api-b"]}]}}}
        """#.write(to: config, atomically: true, encoding: .utf8)
        return config
    }

    @Test("/auth: each issuer's tokens by its own keys and rules; never another entry's; no entry: issuer_mismatch")
    func auth() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(["--config", try Self.config(workspace).path, "--threads", "2"])
        func auth(_ token: String) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: "/auth/api", headers: ServeTests.bearer(token))
        }
        let a = try auth(Self.token(Self.issuerA))
        #expect(a.status == 200 && a.header("X-JWT-Iss") == Self.issuerA && a.header("X-User") == "u-1")
        let b = try auth(Self.token(Self.issuerB, audience: "api-b", signer: TokenFactory.ec))
        #expect(b.status == 200 && b.header("X-JWT-Iss") == Self.issuerB)
        // Issuer A's token signed with issuer B's key: A's keys have no such kid; B is never asked.
        let crossed = try auth(Self.token(Self.issuerA, signer: TokenFactory.ec))
        #expect(crossed.status == 401 && crossed.header("X-JWT-Reason") == "unknown_kid")
        // Each entry's own audiences and rules.
        let audience = try auth(Self.token(Self.issuerA, audience: "api-b"))
        #expect(audience.status == 403 && audience.header("X-JWT-Reason") == "audience_mismatch")
        let other = try auth(
            TokenFactory.token(
                payload: #"{"iss":"\#(Self.issuerA)","aud":"api","exp":1700003600,"iat":1700000000,"sub":"u-2"}"#))
        #expect(other.status == 403 && other.header("X-JWT-Reason") == "claim_mismatch")
        let onlyB = try auth(
            TokenFactory.token(
                payload: #"{"iss":"\#(Self.issuerB)","aud":"api","exp":1700003600,"iat":1700000000,"sub":"u-2"}"#,
                signer: TokenFactory.ec))
        #expect(onlyB.status == 200)
        // No entry: an unknown issuer, an issuer spelled with other bytes, none at all.
        for (token, issuer) in [
            (Self.token("https://c.example.com"), "https://c.example.com"),
            (Self.token("https://A.example.com"), "https://A.example.com"),
        ] {
            let refused = try auth(token)
            #expect(refused.status == 401 && refused.header("X-JWT-Reason") == "issuer_mismatch", "\(issuer)")
        }
        let none = try auth(
            TokenFactory.token(payload: #"{"aud":"api","exp":1700003600,"iat":1700000000,"sub":"u-1"}"#))
        #expect(none.status == 401 && none.header("X-JWT-Reason") == "issuer_mismatch")
        // /metrics shows each entry's keys under NAME#N.
        let metrics = try RawHTTP.request(serve.port, path: "/metrics")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains(#"route="api#1""#) && text.contains(#"route="api#2""#), "\(text)")
        #expect(try RawHTTP.request(serve.port, path: "/ready").status == 200)
    }

    @Test("/verify on such a route: every line judged by its issuer's entry, records in the lines' order")
    func verifyBody() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(["--config", try Self.config(workspace).path, "--threads", "1"])
        let lines = [
            Self.token(Self.issuerB, signer: TokenFactory.ec), Self.token(Self.issuerA),
            #"{"token":"\#(Self.token("https://c.example.com"))","id":"c"}"#, "",
            Self.token(Self.issuerA, signer: TokenFactory.ec), Self.token(Self.issuerB, signer: TokenFactory.ec),
        ]
        let response = try RawHTTP.request(
            serve.port, method: "POST", path: "/verify/api", body: Array(lines.joined(separator: "\n").utf8))
        #expect(response.status == 200)
        let records = String(decoding: response.body, as: UTF8.self).split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        // Numbered as /verify numbers a body's requests (the blank line holds none).
        #expect(records.map { $0["line"] as? Int } == [1, 2, 3, 4, 5])
        #expect(records.map { $0["reason"] as? String } == [nil, nil, "issuer_mismatch", "unknown_kid", nil])
        #expect(
            records[2]["id"] == nil
                && records[2]["detail"] as? String == #"route api has no issuer "https://c.example.com""#)
    }

    @Test("config errors name the entry: no issuer, a repeated one, an answer option, a key given twice")
    func configErrors() throws {
        let workspace = try TestWorkspace()
        let cases: [(String, String)] = [
            (#""issuers": []"#, #""issuers" takes a non-empty list of objects of route options"#),
            (#""issuers": [{"jwks": ["jwks.json"], "audience": "api"}]"#, #"issuers[0] needs an "issuer""#),
            (
                #""issuers": [{"issuer": "x", "jwks": ["jwks.json"], "audience": "a"}, {"issuer": "x", "jwks": ["jwks.json"], "audience": "a"}]"#,
                "issuers[1] repeats the issuer of issuers[0]"
            ),
            (
                #""issuers": [{"issuer": "x", "jwks": ["jwks.json"], "audience": "a", "realm": "r"}]"#,
                #"issuers[0]: "realm" goes on the route, for all its issuers"#
            ),
            (
                #""audience": "a", "issuers": [{"issuer": "x", "jwks": ["jwks.json"], "audience": "b"}]"#,
                #"issuers[0]: "audience" is given on the route too"#
            ),
            (
                #""issuers": [{"issuer": "x", "jwks": ["jwks.json"], "audience": "a", "bogus": 1}]"#,
                #"issuers[0]: unknown key "bogus""#
            ),
        ]
        for (route, message) in cases {
            let config = workspace.file("bad.json")
            try #"{"routes": {"api": {\#(route)}}}"#.write(to: config, atomically: true, encoding: .utf8)
            let outcome = try CLIRunner.run(["serve", "--config", config.path, "--listen", "127.0.0.1:0"])
            #expect([64, 65].contains(outcome.status), "\(route): \(outcome.status) \(outcome.stderr)")
            #expect(outcome.stderr.contains(#"route "api": "# + message), "\(outcome.stderr)")
        }
    }
}
