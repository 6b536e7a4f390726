import Foundation
import JWTVerifyTestSupport
import Testing

/// `--discover` on `verify`, `audit`, `inspect` and `serve` (and `"discover": true` in
/// `serve --config`) against a real issuer on 127.0.0.1.
@Suite("jwtverify --discover", .serialized)
struct CLIDiscoveryTests {
    static let oidc = "/.well-known/openid-configuration"
    static let keys = "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"

    /// An issuer at `path` of a fresh origin, publishing its discovery document and keys.
    static func issuer(path: String = "/tenant") throws -> (DiscoveryOrigin, String) {
        let origin = try DiscoveryOrigin()
        let issuer = origin.base + path
        try origin.serve([
            path + oidc: .init(
                body: DiscoveryOrigin.document(issuer: issuer, keys: origin.base + "/keys"), maxAge: 600),
            "/keys": .init(body: keys, maxAge: 600),
        ])
        return (origin, issuer)
    }

    static func token(issuer: String) -> String {
        TokenFactory.token(
            payload: #"{"iss":"\#(issuer)","aud":"com.example.app","exp":1700003600,"iat":1700000000,"sub":"s-1"}"#)
    }

    static func flags(_ issuer: String, _ extra: [String] = []) -> [String] {
        ["--discover", "--issuer", issuer, "--audience", "com.example.app", "--now", "1700001000"] + extra
    }

    @Test("verify --discover: the token verifies; with --jwks-cache a second run reads neither document nor keys")
    func verify() throws {
        let (origin, issuer) = try Self.issuer()
        let workspace = try TestWorkspace("discover", withKeys: false)
        let cache = ["--jwks-cache", workspace.directory.path]
        let input = Data((Self.token(issuer: issuer) + "\n").utf8)
        let first = try CLIRunner.run(["verify"] + Self.flags(issuer, cache), input: input)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.records.first?["valid"] as? Bool == true)
        #expect(first.records.first?["iss"] as? String == issuer)
        #expect(try origin.stats().hits == ["/tenant" + Self.oidc: 1, "/keys": 1])
        let second = try CLIRunner.run(["verify"] + Self.flags(issuer, cache), input: input)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try origin.stats().hits == ["/tenant" + Self.oidc: 1, "/keys": 1])
    }

    @Test("audit and inspect take --discover like verify")
    func auditAndInspect() throws {
        let (origin, issuer) = try Self.issuer()
        let token = Self.token(issuer: issuer)
        let inspected = try CLIRunner.run(["inspect", "-"] + Self.flags(issuer), input: Data(token.utf8))
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdoutText.hasPrefix("VERIFIED: signature by kid rsa-a (RS256)"))
        let audited = try CLIRunner.run(
            ["audit", "--format", "jsonl", "-"] + Self.flags(issuer), input: Data("GET /x Bearer \(token)\n".utf8))
        #expect(audited.status == 0, "\(audited.stderr)")
        #expect(audited.records.count == 1)
        #expect(audited.records.first?["valid"] as? Bool == true)
        #expect(try origin.stats().hits == ["/tenant" + Self.oidc: 2, "/keys": 2])
    }

    @Test("a document naming a Unicode-equivalent issuer is refused: exit 69, saying why")
    func issuerMismatch() throws {
        let origin = try DiscoveryOrigin()
        let issuer = origin.base + "/caf\u{e9}"
        try origin.serve([
            "/caf%C3%A9" + Self.oidc: .init(
                body: #"{"issuer":"\#(origin.base)/cafe\u0301","jwks_uri":"\#(origin.base)/keys"}"#),
            "/keys": .init(body: Self.keys),
        ])
        let outcome = try CLIRunner.run(
            ["verify"] + Self.flags(issuer), input: Data((Self.token(issuer: issuer) + "\n").utf8))
        #expect(outcome.status == 69)
        #expect(
            outcome.stderr.contains(
                #"--discover \#(issuer): no keys (discovery document's issuer "\#(origin.base)/cafe\xCC\x81" is not the configured issuer"#
            ), "\(outcome.stderr)")
        #expect(try origin.stats().hits["/keys"] == nil)
    }

    @Test("--discover needs --issuer, excludes --jwks and app-store, and refuses an issuer it cannot fetch: exit 64")
    func usage() throws {
        let cases: [([String], String)] = [
            (["--discover", "--audience", "a", "--profile", "google"], "--discover needs --issuer"),
            (
                ["--discover", "--jwks", "keys.json", "--issuer", "https://id.example", "--audience", "a"],
                "--discover and --jwks exclude each other"
            ),
            (["--discover", "--issuer", "http://id.example", "--audience", "a"], "is not https://"),
            (["--discover", "--issuer", "https://id.example?x=1", "--audience", "a"], "has a query or a fragment"),
            (["--discover", "--profile", "app-store", "--bundle-id", "b"], "drop --discover"),
        ]
        for (arguments, message) in cases {
            let outcome = try CLIRunner.run(["verify"] + arguments, input: Data())
            #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
            #expect(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
        }
    }

    @Test("serve --discover and a --config route with \"discover\": true answer 200 for the issuer's token")
    func serve() throws {
        let (origin, issuer) = try Self.issuer()
        let (otherOrigin, otherIssuer) = try Self.issuer(path: "/other")
        let workspace = try TestWorkspace("discover-serve", withKeys: false)
        let config = workspace.file("routes.json")
        try
            #"{"routes": {"partner": {"discover": true, "issuer": "\#(otherIssuer)", "audience": "com.example.app", "now": "1700001000"}}}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(Self.flags(issuer, ["--config", config.path]))
        let token = Self.token(issuer: issuer)
        let otherToken = Self.token(issuer: otherIssuer)
        func auth(_ path: String, _ token: String) throws -> RawHTTP.Response {
            try RawHTTP.request(serve.port, path: path, headers: [("Authorization", "Bearer \(token)")])
        }
        let accepted = try auth("/auth", token)
        #expect(accepted.status == 200)
        #expect(accepted.header("X-JWT-Iss") == issuer)
        #expect(try auth("/auth/partner", otherToken).status == 200)
        // Each route holds its own issuer: the other's token is refused there.
        let crossed = try auth("/auth/partner", token)
        #expect(crossed.status == 401)
        #expect(crossed.header("X-JWT-Reason") == "issuer_mismatch")
        #expect(try origin.stats().hits == ["/tenant" + Self.oidc: 1, "/keys": 1])
        #expect(try otherOrigin.stats().hits == ["/other" + Self.oidc: 1, "/keys": 1])
    }
}
