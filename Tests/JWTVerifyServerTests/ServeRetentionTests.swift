import Foundation
import JWTVerify
import JWTVerifyServer
import JWTVerifyTestSupport
import Testing

/// `serve`'s App Store kinds in-process: Retention Messaging realtime requests at `/retention`
/// and `/verify`, and `RESCIND_CONSENT` notifications at `/appstore`, from `Vectors/appstore/`.
@Suite("serve: realtime requests at /retention and /verify, RESCIND_CONSENT at /appstore")
struct ServeRetentionTests {
    typealias Vectors = AppStoreSyntheticVectors

    /// An `app-store` route `store` (the vectors' policy) beside a plain default route.
    static func service() throws -> ServeService {
        let store = ServeRoute(
            configuration: RouteConfiguration(name: "store"),
            keys: .files(Verifier(policy: try Vectors.policy()), loadedAt: 0, count: 0))
        let plain = ServeRoute(
            configuration: RouteConfiguration(name: ServeRoute.defaultName),
            keys: .files(
                Verifier(
                    keys: TokenFactory.keys,
                    policy: .generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])), loadedAt: 0,
                count: 3))
        return ServeService(routes: ServeRoutes(routes: ["store": store, ServeRoute.defaultName: plain]))
    }

    static func post(_ service: ServeService, _ body: String, path: String = "/retention/store") -> HTTPResponse {
        service.handle(InMemoryRequest(method: "POST", path: path, body: Array(body.utf8)))
    }

    static func envelope(_ id: String) -> String { #"{"signedPayload":"\#(Vectors.token(id))"}"# }

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("/retention answers Apple's body with the verified, typed realtime request")
    func typedRequest() throws {
        let service = try Self.service()
        let ok = Self.post(service, Self.envelope("realtime-request"))
        #expect(ok.status == 200 && ok.header("Content-Type") == "application/json")
        let answer = try Self.json(ok)
        #expect(answer["valid"] as? Bool == true)
        let claims = try #require(answer["claims"] as? [String: Any])
        #expect(claims["kind"] as? String == "realtime_request")
        #expect(claims["originalTransactionId"] as? String == "2000000100")
        #expect(claims["appAppleId"] as? Int == 1_234_567_890 && claims["productId"] as? String == "pro.monthly")
        #expect(claims["userLocale"] as? String == "en-US" && claims["environment"] as? String == "Production")
        #expect(claims["requestIdentifier"] as? String == "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9")
        #expect(claims["signedDate"] as? Int == 1_767_225_600_000)
        #expect(claims["bundleId"] == nil)
        // Other members of Apple's body are ignored.
        let extra = Self.post(service, #"{"note":1,"signedPayload":"\#(Vectors.token("realtime-request-sandbox"))"}"#)
        let sandbox = try #require(try Self.json(extra)["claims"] as? [String: Any])
        #expect(extra.status == 200 && sandbox["environment"] as? String == "Sandbox")
    }

    @Test(
        "/retention refuses: the wrong app 401 app_apple_id_mismatch, tampered 401 bad_signature, another kind 401 claim_type"
    )
    func refusals() throws {
        let service = try Self.service()
        for (id, reason, detail) in [
            ("realtime-request-wrong-app", "app_apple_id_mismatch", "appAppleId 9876543210 is not 1234567890"),
            ("realtime-request-tampered", "bad_signature", "ES256 signature does not verify with the x5c leaf's key"),
            ("one-time-charge", "claim_type", "the signed payload is App Store notification, not a realtime request"),
        ] {
            let refused = Self.post(service, Self.envelope(id))
            #expect(refused.status == 401 && refused.header("X-JWT-Reason") == reason, "\(id)")
            let answer = try Self.json(refused)
            #expect(answer["valid"] as? Bool == false && answer["reason"] as? String == reason, "\(id)")
            #expect(answer["detail"] as? String == detail, "\(id)")
        }
    }

    @Test(
        "/retention: 400 body_not_realtime_request for another body, 405 but POST, 404 on a route that is not app-store"
    )
    func bodiesAndRoutes() throws {
        let service = try Self.service()
        for body in ["not json", "[1]", #"{"payload":"a.b.c"}"#, #"{"signedPayload":7}"#] {
            let refused = Self.post(service, body)
            #expect(refused.status == 400, "\(body)")
            #expect(try Self.json(refused)["error"] as? String == "body_not_realtime_request", "\(body)")
        }
        #expect(Self.post(service, #"{"signedPayload":"a.b.c"}"#).header("X-JWT-Reason") == "malformed")
        let get = service.handle(InMemoryRequest(path: "/retention/store"))
        #expect(get.status == 405 && get.header("Allow") == "POST")
        #expect(Self.post(service, Self.envelope("realtime-request"), path: "/retention").status == 404)
        #expect(Self.post(service, Self.envelope("realtime-request"), path: "/retention/nope").status == 404)
        #expect(Self.post(service, Self.envelope("realtime-request"), path: "/retention/store/x").status == 400)
    }

    @Test("/verify takes realtime requests on an app-store route, as verify's records with the typed request")
    func verifyEndpoint() throws {
        let service = try Self.service()
        let lines = ["realtime-request", "realtime-request-wrong-app"].map { Vectors.token($0) }.joined(separator: "\n")
        let answer = Self.post(service, lines + "\n", path: "/verify/store")
        #expect(answer.status == 200)
        let records = try answer.body.split(separator: 10).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
        #expect(records.count == 2)
        #expect(records[0]["valid"] as? Bool == true)
        #expect((records[0]["claims"] as? [String: Any])?["kind"] as? String == "realtime_request")
        #expect((records[0]["claims"] as? [String: Any])?["userLocale"] as? String == "en-US")
        #expect(records[1]["reason"] as? String == "app_apple_id_mismatch")
    }

    @Test(
        "/appstore: RESCIND_CONSENT answered with its typed AppTransaction; a tampered one 401 with the nested reason")
    func rescindConsent() throws {
        let service = try Self.service()
        let ok = Self.post(service, Self.envelope("rescind-consent"), path: "/appstore/store")
        #expect(ok.status == 200)
        let claims = try #require(try Self.json(ok)["claims"] as? [String: Any])
        #expect(claims["notificationType"] as? String == "RESCIND_CONSENT")
        let app = try #require(claims["appTransaction"] as? [String: Any])
        #expect(
            app["kind"] as? String == "app_transaction" && app["appTransactionId"] as? String == "704289572311245678")
        #expect(app["signedDate"] as? Int == 1_767_222_000_000 && app["originalPlatform"] as? String == "iOS")
        let tampered = Self.post(service, Self.envelope("rescind-consent-nested-tampered"), path: "/appstore/store")
        #expect(tampered.status == 401 && tampered.header("X-JWT-Reason") == "bad_signature")
        let detail = try Self.json(tampered)["detail"] as? String
        #expect(detail?.hasPrefix("appData.signedAppTransactionInfo: ") == true)
    }
}
