import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// DPoP through the real gateways with the README's recipes as printed: the gateway, not the
/// client, says which request a proof must name (`X-Forwarded-*`).
@Suite("DPoP behind real gateways")
struct GatewayDPoPTests {
    typealias F = DPoPProofFactory

    /// serve as an access-token resource server that requires proofs.
    static func serve() throws -> (TestWorkspace, ServeProcess) {
        let workspace = try TestWorkspace()
        return (
            workspace,
            try ServeProcess([
                "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks",
                workspace.jwks.path, "--now", "1700001000", "--dpop", "required", "--threads", "2",
            ])
        )
    }

    /// What a client might forge to make a proof for another request pass.
    static let forged: [(String, String)] = [
        ("X-Forwarded-Method", "POST"), ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "evil.example"),
        ("X-Forwarded-Uri", "/transfer"),
    ]

    /// The checks every gateway must pass: the real request's proof passes once, forged headers
    /// change nothing, a replayed proof or one for another URI or method is refused.
    static func expectChecks(through port: Int, gateway: String) throws {
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        func send(_ proof: String, method: String = "GET", path: String = "/app?page=2") throws -> RawHTTP.Response {
            try RawHTTP.request(
                port, method: method, path: path,
                headers: [("Authorization", "DPoP \(token)"), ("DPoP", proof)] + Self.forged)
        }
        func proof(_ jti: String, htm: String = "GET", htu: String = "http://127.0.0.1/app") -> String {
            F.proof(claims: F.claims(htm: htm, htu: htu, jti: jti, token: token))
        }
        let good = proof("\(gateway)-1")
        let ok = try send(good)
        #expect(ok.status == 200, "\(gateway): \(ok.status) \(ok.header("X-JWT-Reason") ?? "")")
        #expect(GatewayTests.Seen(ok) != nil, "\(gateway): the backend was not reached")
        let again = try send(good)
        #expect(again.status == 401 && again.header("X-JWT-Reason") == "dpop_replayed", "\(gateway)")
        #expect(again.header("WWW-Authenticate")?.hasPrefix(#"DPoP error="invalid_dpop_proof""#) == true, "\(gateway)")
        #expect(GatewayTests.Seen(again) == nil, "\(gateway): the backend was reached")
        // A proof made for what the forged headers say: the gateway's values win.
        let forgedProof = proof("\(gateway)-2", htm: "POST", htu: "https://evil.example/transfer")
        let forged = try send(forgedProof)
        #expect(forged.status == 401 && forged.header("X-JWT-Reason") == "dpop_mismatch", "\(gateway)")
        let otherURI = try send(proof("\(gateway)-3", htu: "http://127.0.0.1/admin"))
        #expect(otherURI.status == 401 && otherURI.header("X-JWT-Reason") == "dpop_mismatch", "\(gateway)")
        let otherMethod = try send(proof("\(gateway)-4"), method: "POST")
        #expect(otherMethod.status == 401 && otherMethod.header("X-JWT-Reason") == "dpop_mismatch", "\(gateway)")
        // The same token as Bearer: refused, a proof is required.
        let bearer = try RawHTTP.request(port, path: "/app", headers: [("Authorization", "Bearer \(token)")])
        #expect(bearer.status == 401 && bearer.header("X-JWT-Reason") == "dpop_missing", "\(gateway)")
    }

    @Test(
        "nginx, the README's recipe: the proof names the client's request; forged X-Forwarded-* change nothing",
        .enabled(if: ExternalProgram.path("nginx") != nil, ExternalProgram.missing("nginx")))
    func nginx() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, nginx) = try GatewayTests.nginx(in: workspace, before: serve, backend: backend.port)
        try Self.expectChecks(through: port, gateway: "nginx")
        withExtendedLifetime((nginx, backend)) {}
    }

    @Test(
        "Caddy, the README's recipe: the proof names the client's request; forged X-Forwarded-* change nothing",
        .enabled(if: ExternalProgram.path("caddy") != nil, ExternalProgram.missing("caddy")))
    func caddy() throws {
        let (workspace, serve) = try Self.serve()
        let backend = try LoopbackScript("recording_backend.py")
        let (port, caddy) = try GatewayTests.caddy(in: workspace, before: serve, backend: backend.port)
        try Self.expectChecks(through: port, gateway: "caddy")
        withExtendedLifetime((caddy, backend)) {}
    }
}
