import JWTVerify
import JWTVerifyServer
import JWTVerifyTestSupport
import Testing

/// The HTTP-facing parsing of `serve`: bearer credentials (RFC 6750 §2.1), header-safe values,
/// the gateway's status mapping, and `/verify` bodies.
@Suite("serve parsing")
struct ServeParsingTests {
    static func bearer(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { value in
            switch BearerCredential.parse(authorization: value) {
            case .token(let range): String(decoding: bytes[range], as: UTF8.self)
            case .absent: "<absent>"
            case .malformed: "<malformed>"
            }
        }
    }

    @Test("Authorization: the scheme in any case, spaces, token68 with padding; other schemes are absent")
    func authorization() {
        #expect(Self.bearer("Bearer abc.def.ghi") == "abc.def.ghi")
        #expect(Self.bearer("bearer   abc-_~+/.x==  ") == "abc-_~+/.x==")
        #expect(Self.bearer("BEARER a") == "a")
        #expect(Self.bearer("Basic dXNlcjpwYXNz") == "<absent>")
        #expect(Self.bearer("") == "<absent>")
        #expect(Self.bearer("Bear") == "<absent>")
        #expect(Self.bearer("Bearerabc") == "<absent>")
        #expect(Self.bearer("Bearer") == "<malformed>")
        #expect(Self.bearer("Bearer ") == "<malformed>")
        #expect(Self.bearer("Bearer a b") == "<malformed>")
        #expect(Self.bearer("Bearer a=b") == "<malformed>")
        #expect(Self.bearer("Bearer a,b") == "<malformed>")
        #expect(Self.bearer("Bearer \u{7f}") == "<malformed>")
    }

    @Test("the request path: endpoint and route name as sent; the query dropped; ambiguous paths refused")
    func requestPath() {
        func parts(_ path: String) -> [String] {
            switch RequestPath.parse(path) {
            case .success(let parsed): [parsed.endpoint?.rawValue ?? "-", parsed.routeName ?? "-"]
            case .failure(let refusal): ["400", refusal.description]
            }
        }
        #expect(parts("/auth") == ["auth", "-"])
        #expect(parts("/auth/ios?y=1/z/../%2F") == ["auth", "ios"])
        #expect(parts("/metrics?x") == ["metrics", "-"])
        #expect(parts("/") == ["-", "-"])
        #expect(parts("/?a/b") == ["-", "-"])
        #expect(parts("/zoë/ü?ß") == ["-", "ü"])
        #expect(parts("/Auth") == ["-", "-"])
        #expect(parts("/auth/\u{212A}1")[1].utf8.elementsEqual("\u{212A}1".utf8))
        #expect(parts("") == ["400", "the path does not start with /"])
        #expect(parts("*") == ["400", "the path does not start with /"])
        for path in ["/verify/", "//auth", "///", "/auth//a", "/auth/a/"] {
            #expect(parts(path) == ["400", "the path has an empty segment"], "\(path)")
        }
        for path in ["/auth/..", "/auth/.", "/auth/a/../b", "/auth/./a", "/../auth"] {
            #expect(parts(path) == ["400", "the path has a dot segment"], "\(path)")
        }
        for path in ["/auth/%2F", "/auth/a%2fb", "/auth/%2E%2E", "/auth/%2e", "/auth/%69os", "/%61uth"] {
            #expect(parts(path) == ["400", "percent-encoding in the path is refused"], "\(path)")
        }
        #expect(parts("/auth/a/b") == ["400", "the path has segments after the route name"])
        #expect(parts("/auth/..a") == ["auth", "..a"])
    }

    @Test("a token from a header or cookie: trimmed, token68 bytes only")
    func plain() {
        func plain(_ text: String) -> BearerCredential.Parsed {
            Array(text.utf8).withUnsafeBytes { BearerCredential.parse(plain: $0) }
        }
        #expect(plain(" a.b.c ") == .token(1..<6))
        #expect(plain("   ") == .absent)
        #expect(plain("a b") == .malformed)
        #expect(plain("a;b") == .malformed)
    }

    @Test("header values: controls, DEL, non-ASCII and % are percent-encoded; quotes too inside quoted strings")
    func headerSafe() {
        #expect(GatewayAnswer.headerSafe("plain value", quoted: false) == "plain value")
        #expect(GatewayAnswer.headerSafe("a\r\nSet-Cookie: x", quoted: false) == "a%0D%0ASet-Cookie: x")
        #expect(GatewayAnswer.headerSafe("100%", quoted: false) == "100%25")
        #expect(GatewayAnswer.headerSafe("Zoë", quoted: false) == "Zo%C3%AB")
        #expect(GatewayAnswer.headerSafe(#"a"b\c"#, quoted: true) == "a%22b%5Cc")
        #expect(GatewayAnswer.headerSafe(#"a"b"#, quoted: false) == #"a"b"#)
    }

    @Test(
        "statuses: 200, 401 with the RFC 6750 challenge, 403 for another audience or hosted domain, 503 without keys or revocation status"
    )
    func statuses() throws {
        let verifier = TokenFactory.verifier()
        let token = Array(TokenFactory.token(payload: TokenFactory.claims(extra: #""roles":["a","b"],"n":3"#)).utf8)
        let result = token.withUnsafeBytes { verifier.evaluate($0, nonce: nil, at: .clock) }
        let claimHeaders = [
            GatewayAnswer.ClaimHeader(parsing: "roles=X-Roles")!, GatewayAnswer.ClaimHeader(parsing: "n=X-N")!,
        ]
        let valid = GatewayAnswer.verdict(result, claimHeaders: claimHeaders, realm: nil)
        #expect(valid.status == 200)
        #expect(
            valid.headers.map(\.0) == [
                "X-JWT-Sub", "X-JWT-Iss", "X-JWT-Aud", "X-JWT-Exp", "X-JWT-Kid", "X-JWT-Alg", "X-Roles", "X-N",
                "Cache-Control",
            ])
        #expect(valid.headers.first { $0.0 == "X-Roles" }?.1 == "a,b")
        #expect(valid.headers.first { $0.0 == "X-N" }?.1 == "3")
        #expect(GatewayAnswer.rejected(.badSignature, realm: nil).status == 401)
        #expect(
            GatewayAnswer.rejected(.expired, realm: "api").headers.first?.1
                == #"Bearer realm="api", error="invalid_token", error_description="expired""#)
        #expect(GatewayAnswer.rejected(.audienceMismatch, realm: nil).status == 403)
        #expect(GatewayAnswer.rejected(.hostedDomainMismatch, realm: nil).status == 403)
        #expect(GatewayAnswer.rejected(.keySetUnavailable, realm: nil).status == 503)
        // DPoP refusals challenge with the DPoP scheme (RFC 9449 §7.1).
        #expect(
            GatewayAnswer.rejected(.dpopReplayed, realm: "api")
                == GatewayAnswer(
                    status: 401,
                    headers: [
                        ("WWW-Authenticate", #"DPoP realm="api", error="invalid_dpop_proof""#),
                        ("X-JWT-Reason", "dpop_replayed"), ("Cache-Control", "no-store"),
                    ]))
        #expect(
            GatewayAnswer.rejected(.dpopMissing, realm: nil).headers.first?.1 == #"DPoP error="invalid_token""#)
        // Each reason answered as its entry declares: revocation status not had is no verdict either.
        #expect(
            GatewayAnswer.rejected(.revocationUnavailable, realm: nil)
                == GatewayAnswer(
                    status: 503,
                    headers: [
                        ("X-JWT-Reason", "revocation_unavailable"), ("Retry-After", "5"), ("Cache-Control", "no-store"),
                    ]))
        for entry in ReasonEntry.all {
            let expected =
                switch entry.answer {
                case .unauthorized, .proofChallenged: 401
                case .forbidden, .challenged: 403
                case .unavailable: 503
                }
            #expect(GatewayAnswer.rejected(entry.reason, realm: nil).status == expected, "\(entry.reason)")
        }
        #expect(
            GatewayAnswer.noToken(realm: nil)
                == GatewayAnswer(status: 401, headers: [("WWW-Authenticate", "Bearer"), ("Cache-Control", "no-store")]))
        #expect(
            GatewayAnswer.ambiguous(realm: "api")
                == GatewayAnswer(
                    status: 400,
                    headers: [
                        ("WWW-Authenticate", #"Bearer realm="api", error="invalid_request""#),
                        ("X-JWT-Reason", "invalid_request"),
                        ("Cache-Control", "no-store"),
                    ]))
        #expect(GatewayAnswer.ClaimHeader(parsing: "email=X User") == nil)
        #expect(GatewayAnswer.ClaimHeader(parsing: "=X") == nil)
        #expect(GatewayAnswer.ClaimHeader(parsing: "email") == nil)
    }

    @Test(
        "/verify bodies: JSON Lines and bare tokens as verify takes them, blank lines skipped, one pretty-printed object, and the first line that is neither"
    )
    func verifyBodies() {
        func lines(_ text: String) -> String {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { body in
                switch VerifyBody.requests(body) {
                case .success(let ranges):
                    ranges.map { String(decoding: bytes[$0], as: UTF8.self) }.joined(separator: "|")
                case .failure(let problem): "error at \(problem.line)"
                }
            }
        }
        #expect(lines("{\"token\":\"a\"}\n\n {\"token\":\"b\"} \r\n") == #"{"token":"a"}|{"token":"b"}"#)
        #expect(lines("{\n \"token\": \"a\"\n}") == "{\n \"token\": \"a\"\n}")
        #expect(lines("{\"token\":\"a\"}\nabc.def.ghi") == #"{"token":"a"}|abc.def.ghi"#)
        #expect(lines("eyJh.eyJi.c2ln\n") == "eyJh.eyJi.c2ln")
        #expect(lines("{\"token\":\"a\"}\nnot a token") == "error at 2")
        #expect(lines("abc") == "error at 1")
        #expect(lines("[1]") == "error at 1")
        #expect(lines("") == "error at 1")
        #expect(lines("\n \n") == "error at 1")
    }
}
