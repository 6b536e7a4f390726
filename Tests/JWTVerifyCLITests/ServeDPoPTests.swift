import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `serve --dpop` on `/auth`: `Authorization: DPoP <token>` with one `DPoP` proof, checked
/// against the client's request from the forward-auth headers, over raw sockets.
@Suite("serve DPoP")
struct ServeDPoPTests {
    typealias F = DPoPProofFactory

    static func flags(_ workspace: TestWorkspace, _ mode: String) -> [String] {
        [
            "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks", workspace.jwks.path,
            "--now", "1700001000", "--dpop", mode, "--threads", "1",
        ]
    }

    static let forwarded: [(String, String)] = [
        ("X-Forwarded-Method", "GET"), ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "api.example.com"),
        ("X-Forwarded-Uri", "/orders?page=2"),
    ]

    static let algs = #"algs="ES256 ES384 ES512 EdDSA PS256 PS384 PS512 RS256 RS384 RS512""#

    /// A bound token and a proof for it (`jti`, `htm`, `htu` as given).
    static func pair(jti: String = "p-1", htm: String = "GET", htu: String = F.uri) -> (token: String, proof: String) {
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        return (token, F.proof(claims: F.claims(htm: htm, htu: htu, jti: jti, token: token)))
    }

    @Test("a DPoP request verifies once; replayed, for another URI or method, or its token as Bearer: refused")
    func required() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(Self.flags(workspace, "required"))
        func auth(_ headers: [(String, String)]) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: "/auth", headers: headers)
        }
        let (token, proof) = Self.pair()
        let request = [("Authorization", "DPoP \(token)"), ("DPoP", proof)] + Self.forwarded
        let ok = try auth(request)
        #expect(ok.status == 200 && ok.header("X-JWT-Sub") == "user-5", "\(ok.header("X-JWT-Reason") ?? "")")
        let replayed = try auth(request)
        #expect(replayed.status == 401 && replayed.header("X-JWT-Reason") == "dpop_replayed")
        #expect(replayed.header("WWW-Authenticate") == #"DPoP error="invalid_dpop_proof", "# + Self.algs)
        let elsewhere = Self.pair(jti: "p-2", htu: "https://api.example.com/admin")
        let other = try auth(
            [("Authorization", "DPoP \(elsewhere.token)"), ("DPoP", elsewhere.proof)] + Self.forwarded)
        #expect(other.status == 401 && other.header("X-JWT-Reason") == "dpop_mismatch")
        let posted = Self.pair(jti: "p-3", htm: "POST")
        let method = try auth([("Authorization", "DPoP \(posted.token)"), ("DPoP", posted.proof)] + Self.forwarded)
        #expect(method.status == 401 && method.header("X-JWT-Reason") == "dpop_mismatch")
        // The bound token as Bearer: no proof where one is required.
        let bearer = try auth([("Authorization", "Bearer \(token)")] + Self.forwarded)
        #expect(bearer.status == 401 && bearer.header("X-JWT-Reason") == "dpop_missing")
        #expect(
            bearer.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true, "\(bearer.header("WWW-Authenticate") ?? "")")
        // A refusal of the token itself (four segments), presented as DPoP: a DPoP invalid_token challenge.
        let malformed = try auth(
            [
                ("Authorization", "DPoP \(token).x"), ("DPoP", Self.pair(jti: "p-4").proof),
            ] + Self.forwarded)
        #expect(malformed.status == 401 && malformed.header("X-JWT-Reason") == "malformed")
        #expect(
            malformed.header("WWW-Authenticate") == #"DPoP error="invalid_token", error_description="malformed", "#
                + Self.algs)
    }

    @Test("serve refuses (400) what it cannot check: not one DPoP header, a forwarded request missing or repeated")
    func unusable() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(Self.flags(workspace, "allowed"))
        let (token, proof) = Self.pair()
        func auth(_ headers: [(String, String)]) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: "/auth", headers: headers)
        }
        let none = try auth([("Authorization", "DPoP \(token)")] + Self.forwarded)
        #expect(none.status == 400 && none.header("X-JWT-Reason") == "invalid_request")
        #expect(
            none.header("WWW-Authenticate")
                == #"DPoP error="invalid_request", error_description="a DPoP token needs exactly one DPoP header", "#
                + Self.algs)
        let two = try auth([("Authorization", "DPoP \(token)"), ("DPoP", proof), ("DPoP", proof)] + Self.forwarded)
        #expect(two.status == 400)
        let missing = try auth([("Authorization", "DPoP \(token)"), ("DPoP", proof)] + Self.forwarded.dropLast())
        #expect(missing.status == 400)
        #expect(missing.header("WWW-Authenticate")?.contains(#"error_description="X-Forwarded-Uri missing""#) == true)
        let repeated = try auth(
            [("Authorization", "DPoP \(token)"), ("DPoP", proof)] + Self.forwarded + [("X-Forwarded-Host", "evil")])
        #expect(repeated.status == 400)
        #expect(
            repeated.header("WWW-Authenticate")?.contains(#"error_description="X-Forwarded-Host repeated""#) == true)
        // Nothing was recorded by the refusals: the proof is still good once.
        #expect(try auth([("Authorization", "DPoP \(token)"), ("DPoP", proof)] + Self.forwarded).status == 200)
        // allowed: an unbound token as Bearer passes; a bound one is dpop_missing.
        let unbound = F.accessToken(boundTo: nil)
        #expect(try auth([("Authorization", "Bearer \(unbound)")]).status == 200)
        let bound = try auth([("Authorization", "Bearer \(token)")])
        #expect(bound.status == 401 && bound.header("X-JWT-Reason") == "dpop_missing")
    }

    @Test("without --dpop: Authorization: DPoP is no credential the route takes, and a bound token is refused")
    func off() throws {
        let workspace = try TestWorkspace()
        var flags = Self.flags(workspace, "required")
        flags.removeSubrange(flags.firstIndex(of: "--dpop")!...flags.firstIndex(of: "--dpop")! + 1)
        let serve = try ServeProcess(flags)
        let (token, proof) = Self.pair()
        let asDPoP = try RawHTTP.request(
            serve.port, path: "/auth", headers: [("Authorization", "DPoP \(token)"), ("DPoP", proof)] + Self.forwarded)
        #expect(asDPoP.status == 401 && asDPoP.header("WWW-Authenticate") == "Bearer")
        let bearer = try RawHTTP.request(serve.port, path: "/auth", headers: [("Authorization", "Bearer \(token)")])
        #expect(bearer.status == 401 && bearer.header("X-JWT-Reason") == "dpop_missing")
    }
}
