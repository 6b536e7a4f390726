import Foundation
import JWTVerify
import JWTVerifyServer
import JWTVerifyTestSupport
import Synchronization
import Testing

/// The rules of `/auth` answers a gateway relies on, in-process: every identity header on a 200,
/// one credential or a 400, and the `Cache-Control` of every `/auth` and `/verify` answer.
@Suite("serve's gateway answers: identity headers, credentials, cache rule")
struct GatewayAnswerRulesTests {
    /// The names of every header of `answer`, in order.
    static func names(_ answer: HTTPResponse) -> [String] { answer.headers.map(\.0) }

    @Test("a 200 /auth answer carries every identity header, empty where the token lacks the claim (sub, aud, email)")
    func everyIdentityHeader() {
        let configuration = RouteConfiguration(
            name: ServeRoute.defaultName, claimHeaders: [GatewayAnswer.ClaimHeader(parsing: "email=X-User-Email")!],
            time: .fixed(TokenFactory.now))
        let service = ServeServiceTests.service(configuration: configuration)
        let all = [
            "X-JWT-Sub", "X-JWT-Iss", "X-JWT-Aud", "X-JWT-Exp", "X-JWT-Kid", "X-JWT-Alg", "X-User-Email",
            "Cache-Control",
        ]
        let full = service.handle(ServeServiceTests.bearer(ServeServiceTests.valid))
        #expect(full.status == 200)
        #expect(Self.names(full) == all)
        #expect(full.header("X-User-Email") == "a@example.com")
        // No sub, no email: both still there, empty.
        let bare = TokenFactory.token(
            payload: #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600}"#)
        let answer = service.handle(ServeServiceTests.bearer(bare))
        #expect(answer.status == 200)
        #expect(Self.names(answer) == all)
        #expect(answer.header("X-JWT-Sub") == "")
        #expect(answer.header("X-User-Email") == "")
        #expect(answer.header("X-JWT-Iss") == TokenFactory.issuer)
        #expect(answer.header("X-JWT-Kid") == "rsa-a")
        // A route with no audience check and a token with no aud: X-JWT-Aud is empty, not left out.
        let open = ServeServiceTests.service(
            policy: VerificationPolicy(issuers: [TokenFactory.issuer], audiences: nil), configuration: configuration)
        let noAudience = open.handle(
            ServeServiceTests.bearer(
                TokenFactory.token(payload: #"{"iss":"https://appleid.apple.com","exp":1700003600,"sub":"s"}"#)))
        #expect(noAudience.status == 200)
        #expect(Self.names(noAudience) == all)
        #expect(noAudience.header("X-JWT-Aud") == "")
        #expect(noAudience.header("X-JWT-Sub") == "s")
    }

    @Test(
        "more than one credential is 400 invalid_request, never a pick: two headers, two places"
    )
    func ambiguousCredentials() {
        let lines = Mutex<[String]>([])
        let service = ServeServiceTests.service(
            configuration: RouteConfiguration(
                name: ServeRoute.defaultName, tokenHeader: "X-Token", tokenCookie: "session", realm: "example",
                time: .fixed(TokenFactory.now)),
            accessLog: { line in lines.withLock { $0.append(line) } })
        let other = TokenFactory.token(payload: TokenFactory.claims(extra: #""email":"b@example.com""#))
        let bearer = "Bearer \(ServeServiceTests.valid)"
        let ambiguous: [(String, InMemoryRequest)] = [
            (
                "two Authorization headers",
                InMemoryRequest(
                    path: "/auth", repeated: [("Authorization", bearer), ("authorization", "Bearer \(other)")])
            ),
            (
                "the same token twice",
                InMemoryRequest(path: "/auth", repeated: [("Authorization", bearer), ("Authorization", bearer)])
            ),
            (
                "a bearer token and a second, Basic, header",
                InMemoryRequest(path: "/auth", repeated: [("Authorization", bearer), ("Authorization", "Basic dTpw")])
            ),
            (
                "Authorization and the token header",
                InMemoryRequest(path: "/auth", headers: ["Authorization": bearer, "X-Token": other])
            ),
            (
                "Authorization and the cookie",
                InMemoryRequest(path: "/auth", headers: ["Authorization": bearer], cookies: ["session": other])
            ),
            (
                "the token header and the cookie",
                InMemoryRequest(
                    path: "/auth", headers: ["X-Token": ServeServiceTests.valid],
                    cookies: ["session": ServeServiceTests.valid])
            ),
            (
                "two token headers",
                InMemoryRequest(path: "/auth", repeated: [("X-Token", ServeServiceTests.valid), ("x-token", other)])
            ),
            (
                "two cookies of the name",
                InMemoryRequest(
                    path: "/auth", repeatedCookies: [("session", ServeServiceTests.valid), ("session", other)])
            ),
            (
                "two Cookie headers",
                InMemoryRequest(
                    path: "/auth", cookies: ["theme": "dark"],
                    repeated: [("Cookie", "theme=dark"), ("Cookie", "session=x")])
            ),
            (
                "a malformed token and a good one",
                InMemoryRequest(
                    path: "/auth", headers: ["Authorization": "Bearer <script>", "X-Token": ServeServiceTests.valid])
            ),
        ]
        for (what, request) in ambiguous {
            let answer = service.handle(request)
            #expect(answer.status == 400, "\(what)")
            #expect(
                answer.headers.elementsEqual(
                    [
                        ("WWW-Authenticate", #"Bearer realm="example", error="invalid_request""#),
                        ("X-JWT-Reason", "invalid_request"),
                        ("Cache-Control", "no-store"),
                    ], by: ==), "\(what): \(answer.headers)")
            #expect(answer.header("X-JWT-Sub") == nil, "\(what)")
        }
        #expect(
            lines.withLock { $0 }.allSatisfy {
                $0.contains(#""status":400"#) && $0.contains(#""reason":"invalid_request""#)
            })
        #expect(lines.withLock { $0 }.count == ambiguous.count)
        // One token in one place is not ambiguous; nor is another scheme beside a token elsewhere.
        let single: [(String, InMemoryRequest)] = [
            (
                "Authorization",
                InMemoryRequest(
                    path: "/auth", headers: ["Authorization": bearer, "Cookie": "theme=dark"],
                    cookies: ["theme": "dark"])
            ),
            ("the token header", InMemoryRequest(path: "/auth", headers: ["X-Token": ServeServiceTests.valid])),
            (
                "the cookie",
                InMemoryRequest(path: "/auth", cookies: ["session": ServeServiceTests.valid, "theme": "dark"])
            ),
            (
                "Basic beside the token header",
                InMemoryRequest(
                    path: "/auth", headers: ["Authorization": "Basic dTpw", "X-Token": ServeServiceTests.valid])
            ),
            (
                "an empty token header beside the cookie",
                InMemoryRequest(path: "/auth", headers: ["X-Token": " "], cookies: ["session": ServeServiceTests.valid])
            ),
        ]
        for (what, request) in single {
            let answer = service.handle(request)
            #expect(answer.status == 200, "\(what)")
            #expect(answer.header("X-JWT-Sub") == "001234.abc.1234", "\(what)")
        }
        // A route without a token header or cookie reads neither, so they cannot make it ambiguous.
        let plain = ServeServiceTests.service()
        #expect(
            plain.handle(
                InMemoryRequest(
                    path: "/auth", headers: ["Authorization": bearer, "X-Token": other], cookies: ["session": other])
            ).status == 200)
        #expect(
            plain.handle(
                InMemoryRequest(path: "/auth", repeated: [("Authorization", bearer), ("Authorization", bearer)])
            ).status == 400)
        let metrics = String(decoding: plain.handle(InMemoryRequest(path: "/metrics")).body, as: UTF8.self)
        #expect(metrics.contains(#"jwtverify_http_responses_total{code="400"} 1"#), "\(metrics)")
    }

    @Test(
        "Cache-Control: no-store on /auth and /verify answers; a route's max-age on a 200 only, never past exp"
    )
    func cacheRule() {
        let headers = [GatewayAnswer.ClaimHeader(parsing: "email=X-User-Email")!]
        let plain = ServeServiceTests.service(
            configuration: RouteConfiguration(
                name: ServeRoute.defaultName, claimHeaders: headers, time: .fixed(TokenFactory.now)))
        let expired = TokenFactory.token(payload: TokenFactory.claims(exp: "1700000100"))
        let elsewhere = TokenFactory.token(
            payload: #"{"iss":"https://appleid.apple.com","aud":"other","exp":1700003600,"iat":1700000000,"sub":"s"}"#)
        let requests: [(String, InMemoryRequest, Int)] = [
            ("valid", ServeServiceTests.bearer(ServeServiceTests.valid), 200),
            ("expired", ServeServiceTests.bearer(expired), 401),
            ("another audience", ServeServiceTests.bearer(elsewhere), 403),
            ("no token", InMemoryRequest(path: "/auth"), 401), ("malformed", ServeServiceTests.bearer("a.b.c"), 401),
            (
                "two credentials",
                InMemoryRequest(
                    path: "/auth", repeated: [("Authorization", "Bearer a.b.c"), ("Authorization", "Bearer a.b.c")]),
                400
            ),
            ("a method /auth refuses", InMemoryRequest(method: "DELETE", path: "/auth"), 405),
            (
                "/verify",
                InMemoryRequest(method: "POST", path: "/verify", body: Array((ServeServiceTests.valid + "\n").utf8)),
                200
            ),
            (
                "/verify, not JSON",
                InMemoryRequest(method: "POST", path: "/verify", body: Array("hello world\n".utf8)), 400
            ),
            ("/verify by GET", InMemoryRequest(path: "/verify"), 405),
        ]
        for (what, request, status) in requests {
            let answer = plain.handle(request)
            #expect(answer.status == status, "\(what)")
            #expect(
                answer.headers.filter { $0.0 == "Cache-Control" }.map(\.1) == ["no-store"], "\(what): \(answer.headers)"
            )
        }
        // Other endpoints keep their own rules.
        #expect(plain.handle(InMemoryRequest(path: "/healthz")).header("Cache-Control") == nil)
        #expect(plain.handle(InMemoryRequest(path: "/metrics")).header("Cache-Control") == nil)

        func cached(maxAge: Int, _ token: String) -> HTTPResponse {
            let configuration = RouteConfiguration(
                name: ServeRoute.defaultName, claimHeaders: headers, time: .fixed(TokenFactory.now), cacheMaxAge: maxAge
            )
            return ServeServiceTests.service(configuration: configuration).handle(ServeServiceTests.bearer(token))
        }
        // exp 1700003600 at now 1700001000: 2600 s left.
        #expect(cached(maxAge: 300, ServeServiceTests.valid).header("Cache-Control") == "private, max-age=300")
        #expect(cached(maxAge: 5000, ServeServiceTests.valid).header("Cache-Control") == "private, max-age=2600")
        #expect(cached(maxAge: 2600, ServeServiceTests.valid).header("Cache-Control") == "private, max-age=2600")
        // A fraction of a second left rounds down; past exp but within the leeway: 0.
        let soon = TokenFactory.token(payload: TokenFactory.claims(exp: "1700001000.9"))
        #expect(cached(maxAge: 300, soon).status == 200)
        #expect(cached(maxAge: 300, soon).header("Cache-Control") == "private, max-age=0")
        let withinLeeway = TokenFactory.token(payload: TokenFactory.claims(exp: "1700000970"))
        #expect(cached(maxAge: 300, withinLeeway).status == 200)
        #expect(cached(maxAge: 300, withinLeeway).header("Cache-Control") == "private, max-age=0")
        // Refusals on the same route stay no-store.
        for (token, status) in [(expired, 401), (elsewhere, 403), ("a.b.c", 401)] {
            let answer = cached(maxAge: 300, token)
            #expect(answer.status == status)
            #expect(answer.headers.filter { $0.0 == "Cache-Control" }.map(\.1) == ["no-store"])
        }
        #expect(CacheRule.value(maxAge: 60, expiresAt: nil, now: 0) == "private, max-age=60")
    }
}

/// The challenge of a reason that answers 403 with one (``ReasonEntry/Answer/challenged(error:)``),
/// beside the other answers, which are as they always were.
@Suite("serve's gateway answers: the insufficient_scope challenge")
struct GatewayChallengeTests {
    @Test(
        "insufficient_scope: 403 with error and the required scopes (realm first, quoted-string safe); the rest unchanged"
    )
    func challenge() {
        let bare = GatewayAnswer.rejected(.insufficientScope, realm: nil, scope: ["read", "write"])
        #expect(bare.status == 403)
        #expect(
            bare.headers.map { "\($0.0): \($0.1)" } == [
                #"WWW-Authenticate: Bearer error="insufficient_scope", scope="read write""#,
                "X-JWT-Reason: insufficient_scope", "Cache-Control: no-store",
            ])
        let realm = GatewayAnswer.rejected(.insufficientScope, realm: "a\"b", scope: ["x\"y"])
        #expect(
            realm.headers.first?.1 == #"Bearer realm="a%22b", error="insufficient_scope", scope="x%22y""#)
        #expect(
            GatewayAnswer.rejected(.insufficientScope, realm: nil).headers.first?.1
                == #"Bearer error="insufficient_scope""#)
        // The answers of other reasons do not change with a scope.
        for reason in [VerificationError.Reason.audienceMismatch, .expired, .keySetUnavailable] {
            #expect(
                GatewayAnswer.rejected(reason, realm: "api", scope: ["read"])
                    == GatewayAnswer.rejected(reason, realm: "api"))
        }
        #expect(
            GatewayAnswer.rejected(.audienceMismatch, realm: nil)
                == GatewayAnswer(
                    status: 403, headers: [("X-JWT-Reason", "audience_mismatch"), ("Cache-Control", "no-store")]))
        #expect(
            GatewayAnswer.rejected(.expired, realm: "api").headers.first?.1
                == #"Bearer realm="api", error="invalid_token", error_description="expired""#)
    }
}
