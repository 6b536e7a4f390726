import JWTVerify
import JWTVerifyServer
import JWTVerifyTestSupport
import Testing

/// Each request reaches the route its path names exactly, or none: in-process, the service as
/// the transport hands requests over.
@Suite("serve's routes are isolated")
struct RouteIsolationTests {
    /// A route over the test keys accepting `audience`.
    static func route(_ name: String, audience: String) -> ServeRoute {
        let policy = VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [audience])
        return ServeRoute(
            configuration: RouteConfiguration(name: name, time: .fixed(TokenFactory.now)),
            keys: .files(Verifier(keys: TokenFactory.keys, policy: policy), loadedAt: 0, count: 3))
    }

    static func routes(_ names: [String]) -> ServeRoutes {
        var routes = [ServeRoute.defaultName: route(ServeRoute.defaultName, audience: TokenFactory.audience)]
        for name in names { routes[name] = route(name, audience: "aud-" + name) }
        return ServeRoutes(routes: routes)
    }

    static func token(audience: String) -> String {
        TokenFactory.token(
            payload:
                #"{"iss":"https://appleid.apple.com","aud":"\#(audience)","exp":1700003600,"iat":1700000000,"sub":"s"}"#
        )
    }

    static func status(_ service: ServeService, _ path: String, token: String, method: String = "GET") -> Int {
        if method == "POST" {
            return service.handle(InMemoryRequest(method: "POST", path: path, body: Array((token + "\n").utf8))).status
        }
        return service.handle(InMemoryRequest(path: path, headers: ["Authorization": "Bearer \(token)"])).status
    }

    @Test("each name reaches its own route; an unknown name, the default's own name and look-alike spellings are 404")
    func names() {
        let service = ServeService(routes: Self.routes(["ios", "K1"]))
        #expect(Self.status(service, "/auth", token: Self.token(audience: TokenFactory.audience)) == 200)
        #expect(Self.status(service, "/auth/ios", token: Self.token(audience: "aud-ios")) == 200)
        #expect(Self.status(service, "/auth/ios", token: Self.token(audience: TokenFactory.audience)) == 403)
        #expect(Self.status(service, "/auth/K1", token: Self.token(audience: "aud-K1")) == 200)
        let valid = Self.token(audience: TokenFactory.audience)
        for path in ["/auth/typo", "/auth/default", "/auth/\u{212A}1", "/auth/IOS"] {
            #expect(Self.status(service, path, token: valid) == 404, "\(path)")
        }
        for path in ["/verify/typo", "/verify/\u{212A}1", "/notifications/typo", "/appstore/typo", "/verify/default"] {
            #expect(Self.status(service, path, token: valid, method: "POST") == 404, "\(path)")
        }
        #expect(Self.status(service, "/verify/ios", token: Self.token(audience: "aud-ios"), method: "POST") == 200)
        #expect(Self.status(service, "/auth/ios?route=K1", token: Self.token(audience: "aud-ios")) == 200)
    }

    @Test("without a default route, bare endpoints are 404")
    func noDefault() {
        let service = ServeService(routes: ServeRoutes(routes: ["ios": Self.route("ios", audience: "aud-ios")]))
        #expect(Self.status(service, "/auth", token: Self.token(audience: "aud-ios")) == 404)
        #expect(Self.status(service, "/auth/ios", token: Self.token(audience: "aud-ios")) == 200)
    }

    @Test("ambiguous paths are 400 and reach no route")
    func ambiguous() {
        let service = ServeService(routes: Self.routes(["a", "b", "ios"]))
        let token = Self.token(audience: "aud-b")
        for path in [
            "/auth/..", "/auth/a/../b", "/auth/./b", "/auth/%62", "/auth/a%2Fb", "/auth/a%2fb", "/auth/%2E%2E",
            "/auth//b", "/auth/b/", "/auth/b/c", "//auth/b",
        ] {
            #expect(Self.status(service, path, token: token) == 400, "\(path)")
        }
        #expect(Self.status(service, "/verify/a/../b", token: token, method: "POST") == 400)
        #expect(Self.status(service, "/notifications/%2E%2E", token: token, method: "POST") == 400)
    }

    @Test("a route removed by a reload is 404 from that reload on")
    func reload() {
        let service = ServeService(routes: Self.routes(["ios", "web"]))
        #expect(Self.status(service, "/auth/ios", token: Self.token(audience: "aud-ios")) == 200)
        service.replace(Self.routes(["web"]))
        #expect(Self.status(service, "/auth/ios", token: Self.token(audience: "aud-ios")) == 404)
        #expect(Self.status(service, "/verify/ios", token: Self.token(audience: "aud-ios"), method: "POST") == 404)
        #expect(Self.status(service, "/auth/web", token: Self.token(audience: "aud-web")) == 200)
    }
}
