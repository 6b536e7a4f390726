import Foundation
import JWTVerify
import JWTVerifyServer
import JWTVerifyTestSupport
import Synchronization
import Testing

/// `serve`'s request path in-process: the service answering requests held in memory, as the
/// libmicrohttpd transport hands them over, with no socket in between.
@Suite("serve's service, in-process")
struct ServeServiceTests {
    static let valid = TokenFactory.token(
        payload: TokenFactory.claims(extra: #""email":"a@example.com","groups":["admin","ops"]"#))

    static func service(
        policy: VerificationPolicy = .generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]),
        configuration: RouteConfiguration = RouteConfiguration(
            name: ServeRoute.defaultName, time: .fixed(TokenFactory.now)),
        accessLog: (@Sendable (String) -> Void)? = nil
    ) -> ServeService {
        let route = ServeRoute(
            configuration: configuration,
            keys: .files(Verifier(keys: TokenFactory.keys, policy: policy), loadedAt: 0, count: 3))
        return ServeService(routes: ServeRoutes(routes: [route.name: route]), accessLog: accessLog)
    }

    static func bearer(_ token: String, path: String = "/auth") -> InMemoryRequest {
        InMemoryRequest(path: path, headers: ["Authorization": "Bearer \(token)"])
    }

    @Test(
        "/auth gathers a route's requests only where batches pay: P-256 keys always, RSA keys with the multi-buffer engine"
    )
    func gathersWhereBatchesPay() throws {
        func gathers(_ jwks: String, algorithms: Set<SignatureAlgorithm>) throws -> Bool {
            let policy = VerificationPolicy(
                issuers: [TokenFactory.issuer], audiences: [TokenFactory.audience], algorithms: algorithms)
            let verifier = Verifier(keys: try JWKSet(json: Array(jwks.utf8)), policy: policy)
            return ServeRoute(
                configuration: RouteConfiguration(name: "r"), keys: .files(verifier, loadedAt: 0, count: 1)
            ).gathers
        }
        let ec = "{\"keys\":[\(TokenFactory.ec.jwkJSON)]}"
        let rsa = "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.rsaB.jwkJSON)]}"
        #expect(try gathers(ec, algorithms: [.es256]))
        #expect(try !gathers(ec, algorithms: [.rs256]))
        #expect(try gathers(rsa, algorithms: [.rs256]) == MultiBufferEngine.isLoaded)
        #expect(try !gathers(rsa, algorithms: [.ps256]))
        #expect(try gathers(TokenFactory.jwksJSON, algorithms: SignatureAlgorithm.defaultAllowed))
    }

    @Test(
        "/appstore: a notification body verified by an app-store route; 401 with the reason, 400 for another body, 404 on other routes"
    )
    func appStoreWebhook() throws {
        let pki = try AppStoreChainFactory()
        try pki.root("root")
        try pki.issue("ca", by: "root", section: "ca")
        try pki.issue("leaf", by: "ca", section: "leaf")
        let now = Date().timeIntervalSince1970 + 5
        let transaction = try pki.token(
            payload: AppStoreChainFactory.transaction(signedDate: now), chain: ["leaf", "ca", "root"], signer: "leaf")
        func notification(bundleID: String) throws -> String {
            try pki.token(
                payload:
                    #"{"notificationType":"ONE_TIME_CHARGE","notificationUUID":"n-1","signedDate":\#(Int64(now * 1000)),"data":{"bundleId":"\#(bundleID)","environment":"Sandbox","signedTransactionInfo":"\#(transaction)"}}"#,
                chain: ["leaf", "ca", "root"], signer: "leaf")
        }
        let appStore = ServeRoute(
            configuration: RouteConfiguration(name: "store"),
            keys: .files(
                Verifier(policy: .appStore(bundleIDs: ["com.example.app"], trust: try pki.trust("root"))), loadedAt: 0,
                count: 0))
        let plain = ServeRoute(
            configuration: RouteConfiguration(name: ServeRoute.defaultName),
            keys: .files(
                Verifier(
                    keys: TokenFactory.keys,
                    policy: .generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])), loadedAt: 0,
                count: 3))
        let service = ServeService(routes: ServeRoutes(routes: ["store": appStore, ServeRoute.defaultName: plain]))
        func post(_ body: String, path: String = "/appstore/store") -> HTTPResponse {
            service.handle(InMemoryRequest(method: "POST", path: path, body: Array(body.utf8)))
        }
        let ok = post(#"{"signedPayload":"\#(try notification(bundleID: "com.example.app"))"}"#)
        #expect(ok.status == 200)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(ok.body)) as? [String: Any])
        let claims = try #require(answer["claims"] as? [String: Any])
        #expect(answer["valid"] as? Bool == true && claims["notificationType"] as? String == "ONE_TIME_CHARGE")
        #expect((claims["transaction"] as? [String: Any])?["transactionId"] as? String == "2000000123")
        let other = post(#"{"signedPayload":"\#(try notification(bundleID: "com.other.app"))"}"#)
        #expect(other.status == 401 && other.header("X-JWT-Reason") == "bundle_mismatch")
        #expect(post(#"{"payload":"x"}"#).header("X-JWT-Reason") == "malformed")  // an envelope, its JWS not one
        #expect(post(#"{"token":"x"}"#).status == 400)
        #expect(post("not json").status == 400)
        // The same notification again: acknowledged, marked as a duplicate.
        let again = post(
            #"{"signedPayload":"\#(try notification(bundleID: "com.example.app"))"}"#, path: "/notifications/store")
        let repeated = try #require(try JSONSerialization.jsonObject(with: Data(again.body)) as? [String: Any])
        #expect(again.status == 200 && repeated["duplicate"] as? Bool == true && repeated["id"] as? String == "n-1")
        #expect(answer["duplicate"] as? Bool == false)
        #expect(post(#"{"signedPayload":"a.b.c"}"#).header("X-JWT-Reason") == "malformed")
        // the default route verifies no App Store data
        #expect(post(#"{"signedPayload":"x"}"#, path: "/appstore").status == 404)
        #expect(service.handle(InMemoryRequest(path: "/appstore/store")).status == 405)
        // /verify takes App Store tokens on the same route, as verify's records.
        let lines = service.handle(
            InMemoryRequest(method: "POST", path: "/verify/store", body: Array((transaction + "\n").utf8)))
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(lines.body.split(separator: 10)[0])) as? [String: Any])
        #expect(
            record["valid"] as? Bool == true
                && (record["claims"] as? [String: Any])?["kind"] as? String == "transaction")
    }

    @Test(
        "/notifications: Sign in with Apple's events typed, repeats marked, 401 for a tampered JWS, 400 for another body, 503 without keys"
    )
    func signInWithAppleNotifications() throws {
        let notifications = ServeRoute(
            configuration: RouteConfiguration(name: "apple", time: .fixed(TokenFactory.now)),
            keys: .files(
                Verifier(keys: TokenFactory.keys, policy: .appleNotification(audiences: [TokenFactory.audience])),
                loadedAt: 0, count: 3))
        let plain = ServeRoute(
            configuration: RouteConfiguration(name: ServeRoute.defaultName, time: .fixed(TokenFactory.now)),
            keys: .files(
                Verifier(
                    keys: TokenFactory.keys,
                    policy: .generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])), loadedAt: 0,
                count: 3))
        let unavailable = ServeRoute(
            configuration: RouteConfiguration(name: "remote"),
            keys: .remote(
                RemoteVerifier(
                    keySet: RemoteKeySet(url: "http://127.0.0.1:9/keys", fetcher: RefusingFetcher()),
                    policy: .appleNotification(audiences: ["a"]))))
        let service = ServeService(
            routes: ServeRoutes(routes: ["apple": notifications, ServeRoute.defaultName: plain, "remote": unavailable]))
        func post(_ body: String, path: String = "/notifications/apple") throws -> (
            status: Int, json: [String: Any], reason: String?
        ) {
            let answer = service.handle(InMemoryRequest(method: "POST", path: path, body: Array(body.utf8)))
            let json = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
            return (answer.status, json, answer.header("X-JWT-Reason"))
        }
        for (index, type) in ["email-disabled", "email-enabled", "consent-revoked", "account-delete", "future-kind"]
            .enumerated()
        {
            let jws = Self.notification(type: type, jti: "j-\(index)")
            let first = try post(#"{"payload":"\#(jws)"}"#)
            let event = try #require(first.json["event"] as? [String: Any], "\(first)")
            #expect(
                first.status == 200 && first.json["valid"] as? Bool == true && first.json["duplicate"] as? Bool == false
            )
            #expect(
                event["type"] as? String == type && event["sub"] as? String == "001234.abc.1234"
                    && first.json["id"] as? String == "j-\(index)")
            let second = try post(#"{"payload":"\#(jws)"}"#, path: "/appstore/apple")
            #expect(second.status == 200 && second.json["duplicate"] as? Bool == true)
        }
        let parts = Self.notification(type: "account-delete", jti: "t").split(separator: ".")
        let tampered = try post(#"{"payload":"\#(parts[0]).\#(parts[1].dropLast())A.\#(parts[2])"}"#)
        #expect(
            tampered.status == 401 && tampered.reason == "bad_signature"
                && tampered.json["reason"] as? String == "bad_signature")
        let notJSON = try post("payload=abc")
        #expect(notJSON.status == 400 && notJSON.json["error"] as? String == "body_not_notification")
        // the default route takes no notifications
        #expect(try post(#"{"payload":"x"}"#, path: "/notifications").status == 404)
        let waiting = try post(
            #"{"payload":"\#(Self.notification(type: "account-delete"))"}"#, path: "/notifications/remote")
        #expect(waiting.status == 503 && waiting.reason == "jwks_unavailable")
        #expect(service.handle(InMemoryRequest(path: "/notifications/apple")).status == 405)
    }

    /// A Sign in with Apple notification of `type`, signed by the test key.
    static func notification(type: String, jti: String = "jti-1") -> String {
        let events = #"{\"type\":\"\#(type)\",\"sub\":\"001234.abc.1234\",\"event_time\":1700000950123}"#
        return TokenFactory.token(
            payload:
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"jti":"\#(jti)","events":"\#(events)"}"#
        )
    }

    @Test("/auth: 200 with claim headers, 401 with the reason, 403 for another audience, 401 without a token")
    func auth() {
        let service = Self.service(
            configuration: RouteConfiguration(
                name: ServeRoute.defaultName, claimHeaders: [GatewayAnswer.ClaimHeader(parsing: "groups=X-Groups")!],
                time: .fixed(TokenFactory.now)))
        let ok = service.handle(Self.bearer(Self.valid))
        #expect(ok.status == 200)
        #expect(ok.header("X-JWT-Sub") == "001234.abc.1234")
        #expect(ok.header("X-Groups") == "admin,ops")
        let expired = service.handle(Self.bearer(TokenFactory.token(payload: TokenFactory.claims(exp: "1700000100"))))
        #expect(expired.status == 401)
        #expect(expired.header("X-JWT-Reason") == "expired")
        #expect(expired.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="expired""#)
        let elsewhere = TokenFactory.token(
            payload: #"{"iss":"https://appleid.apple.com","aud":"other","exp":1700003600,"iat":1700000000,"sub":"s"}"#)
        #expect(service.handle(Self.bearer(elsewhere)).status == 403)
        let none = service.handle(InMemoryRequest(path: "/auth"))
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == "Bearer")
        let metrics = String(decoding: service.handle(InMemoryRequest(path: "/metrics")).body, as: UTF8.self)
        #expect(
            metrics.contains(#"jwtverify_verifications_total{route="default",result="no_token",reason="none"} 1"#),
            "\(metrics)")
        #expect(
            metrics.contains(#"jwtverify_verifications_total{route="default",result="rejected",reason="expired"} 1"#))
    }

    @Test("/verify answers records for bare and JSON lines; 400 for a line that is neither; other paths and methods")
    func verifyAndOthers() {
        let service = Self.service()
        let body = Array((Self.valid + "\n" + #"{"token":"\#(Self.valid)","id":7}"# + "\n").utf8)
        let answer = service.handle(InMemoryRequest(method: "POST", path: "/verify", body: body))
        #expect(answer.status == 200)
        let lines = String(decoding: answer.body, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains(#""valid":true"#) })
        #expect(lines[1].hasPrefix(#"{"line":2,"id":7,"#))
        #expect(
            service.handle(InMemoryRequest(method: "POST", path: "/verify", body: Array("hello world\n".utf8))).status
                == 400)
        #expect(service.handle(InMemoryRequest(path: "/verify")).status == 405)
        #expect(service.handle(InMemoryRequest(method: "DELETE", path: "/auth")).status == 405)
        #expect(service.handle(InMemoryRequest(path: "/healthz")).status == 200)
        #expect(service.handle(InMemoryRequest(path: "/ready")).status == 200)
        #expect(service.handle(InMemoryRequest(path: "/nope")).status == 404)
    }

    @Test("the token header and cookie; the access log carries the fingerprint, never the token")
    func tokenPlacesAndLog() {
        let lines = Mutex<[String]>([])
        let service = Self.service(
            configuration: RouteConfiguration(
                name: ServeRoute.defaultName, tokenHeader: "X-Token", tokenCookie: "session",
                time: .fixed(TokenFactory.now)),
            accessLog: { line in lines.withLock { $0.append(line) } })
        #expect(service.handle(InMemoryRequest(path: "/auth", headers: ["x-token": Self.valid])).status == 200)
        #expect(service.handle(InMemoryRequest(path: "/auth", cookies: ["session": Self.valid])).status == 200)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(
            logged.allSatisfy {
                $0.contains(#""status":200"#) && $0.contains(#""fingerprint":""#) && !$0.contains(Self.valid)
            })
    }

    @Test("a route that requires a nonce answers nonce_missing on /auth unless the route gives one")
    func nonceRequired() {
        let apple = VerificationPolicy.appleIdentityToken(audiences: [TokenFactory.audience])
        let payload =
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":1700000000,"sub":"s","nonce":"\#(Nonce.expectedClaim(forRawNonce: "r"))"}"#
        let token = TokenFactory.token(payload: payload)
        let without = Self.service(policy: apple)
        #expect(without.handle(Self.bearer(token)).header("X-JWT-Reason") == "nonce_missing")
        let with = Self.service(
            policy: apple,
            configuration: RouteConfiguration(name: ServeRoute.defaultName, nonce: "r", time: .fixed(TokenFactory.now)))
        #expect(with.handle(Self.bearer(token)).status == 200)
    }

    @Test("claim headers come from the claims the verifier kept in its own pass, the same as a second read gives")
    func capturedClaimHeaders() throws {
        let headers = ["groups=X-Groups", "email=X-Email", "missing=X-Missing", "nested=X-Nested", "n=X-N"].map {
            GatewayAnswer.ClaimHeader(parsing: $0)!
        }
        // A plain payload (the fast scanner) and one with an escape (jansson): both parsers capture.
        for extra in [
            #""email":"a@example.com","groups":["admin","ops"],"nested":{"a":1},"n":12"#,
            #""email":"a\u0040example.com","groups":["admin","ops"],"nested":{"a":1},"n":12.5"#,
        ] {
            let token = TokenFactory.token(payload: TokenFactory.claims(extra: extra))
            var capturing = VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])
            capturing.capturedClaims = headers.map(\.claim)
            let configuration = RouteConfiguration(
                name: ServeRoute.defaultName, claimHeaders: headers, time: .fixed(TokenFactory.now))
            let captured = Self.service(policy: capturing, configuration: configuration).handle(Self.bearer(token))
            let reread = Self.service(configuration: configuration).handle(Self.bearer(token))
            #expect(captured.status == 200 && reread.status == 200)
            #expect(captured.header("X-Groups") == "admin,ops")
            #expect(captured.header("X-Email") == "a@example.com")
            #expect(captured.header("X-Missing") == "")
            for name in ["X-Groups", "X-Email", "X-Missing", "X-Nested", "X-N", "X-JWT-Sub"] {
                #expect(captured.header(name) == reread.header(name), "\(name)")
            }
            let verified = try Verifier(keys: TokenFactory.keys, policy: capturing).verify(token, at: TokenFactory.now)
            #expect(verified.hasCapturedClaims && verified.capturedClaim(at: 2) == nil)
        }
    }
}

/// A fetcher whose every fetch fails at once: a remote key set that never has keys.
struct RefusingFetcher: KeySetFetcher {
    func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult { .failed("refused") }
}

/// The event loops' flush rules, without a socket.
@Suite("when held /auth requests are verified")
struct FlushPolicyTests {
    @Test("a lone request is verified as soon as nothing more is ready; busy passes hold it at most four times")
    func passes() {
        var policy = FlushPolicy()
        func flushes(holding: Bool, ready: Int, daemonDue: Int, resumed: Bool = false) -> Bool {
            policy.shouldFlush(holding: holding, ready: ready, daemonTimeout: daemonDue, resumed: resumed)
        }
        #expect(!flushes(holding: false, ready: 0, daemonDue: -1))  // nothing held: nothing to flush
        #expect(flushes(holding: true, ready: 0, daemonDue: -1))  // nothing more ready
        policy.flushed()
        #expect(!flushes(holding: true, ready: 0, daemonDue: 0))  // the daemon has work due: run it first
        policy.flushed()
        // connections just resumed: run them first
        #expect(!flushes(holding: true, ready: 0, daemonDue: -1, resumed: true))
        policy.flushed()
        var held: [Bool] = []
        for _ in 1...FlushPolicy.maximumWaitingPasses { held.append(flushes(holding: true, ready: 3, daemonDue: -1)) }
        #expect(held == Array(repeating: false, count: FlushPolicy.maximumWaitingPasses))
        #expect(flushes(holding: true, ready: 3, daemonDue: -1))  // busy connections cannot hold it longer
        #expect(policy.waitingPasses == FlushPolicy.maximumWaitingPasses + 1)
        policy.flushed()
        #expect(policy.waitingPasses == 0)
    }

    @Test(
        "waits: the daemon's own timeout when nothing is held, a poll while holding or after a resume, at most 20 ms while draining"
    )
    func waits() {
        #expect(FlushPolicy.waitMilliseconds(daemonTimeout: -1, holding: false, resumed: false, draining: false) == -1)
        #expect(
            FlushPolicy.waitMilliseconds(daemonTimeout: 5000, holding: false, resumed: false, draining: false) == 5000)
        #expect(FlushPolicy.waitMilliseconds(daemonTimeout: 5000, holding: true, resumed: false, draining: false) == 0)
        #expect(FlushPolicy.waitMilliseconds(daemonTimeout: 5000, holding: false, resumed: true, draining: false) == 0)
        #expect(FlushPolicy.waitMilliseconds(daemonTimeout: -1, holding: false, resumed: false, draining: true) == 20)
        #expect(FlushPolicy.waitMilliseconds(daemonTimeout: 7, holding: false, resumed: false, draining: true) == 7)
        #expect(!FlushPolicy.mustFlushBeforeHolding(held: AuthGathering.limit - 1, capacity: AuthGathering.limit))
        #expect(FlushPolicy.mustFlushBeforeHolding(held: AuthGathering.limit, capacity: AuthGathering.limit))
    }
}
