import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Testing

/// The access-token profile against a real authorization server: Authlib issuing RFC 9068 tokens
/// (RS256 and ES256) and an OpenID Connect ID token on loopback, its keys fetched from the
/// `jwks_uri` of its discovery document. The same verdicts and reasons on the library, `verify`
/// and `serve`.
@Suite(
    "Authlib's access tokens", .serialized,
    .enabled(if: AuthorizationServer.available, Comment(rawValue: AuthorizationServer.missingMessage)))
struct AuthlibAccessTokenTests {
    /// Tokens from one server, each with what it is.
    struct Issued {
        let server: AuthorizationServer
        /// rs-client, RS256, `scope` "read write".
        let rs: String
        /// es-client, ES256, `scope` "read write".
        let es: String
        /// rs-client, no scope asked: Authlib issues `scope` "".
        let unscoped: String
        /// other-client: `aud` another resource.
        let otherResource: String
        /// web-client's OpenID Connect ID token (implicit grant): `typ` JWT, same keys.
        let idToken: String

        init() throws {
            let server = try AuthorizationServer()
            self.server = server
            func token(_ client: String, _ scope: String?) throws -> String {
                let answer = try server.clientCredentials(client: client, scope: scope)
                #expect(answer.status == 200, "\(answer.body)")
                #expect(answer.body["token_type"] as? String == "Bearer")
                return answer.accessToken
            }
            rs = try token("rs-client", "read write")
            es = try token("es-client", "read write")
            unscoped = try token("rs-client", nil)
            otherResource = try token("other-client", "read write")
            idToken = try server.idToken(nonce: "n-0S6_WzA2Mj")
        }

        /// Each token with its name, in a fixed order.
        var all: [(name: String, token: String)] {
            [("rs", rs), ("es", es), ("unscoped", unscoped), ("otherResource", otherResource), ("idToken", idToken)]
        }
    }

    /// The required scopes of each policy the faces are run with.
    static let scopeSets: [[String]] = [[], ["read"], ["read", "admin"]]

    /// What every face must answer: `valid`, or the reason and its detail.
    static func expected(_ name: String, scopes: [String]) -> (reason: String, detail: String)? {
        switch name {
        case "rs", "es":
            return scopes.contains("admin") ? ("insufficient_scope", #"scope lacks the required "admin""#) : nil
        case "unscoped":
            if scopes.isEmpty { return nil }
            return (
                "insufficient_scope", "scope lacks the required " + scopes.map { #""\#($0)""# }.joined(separator: ", ")
            )
        case "otherResource":
            return ("audience_mismatch", #"aud "\#(AuthorizationServer.otherResource)" names no accepted audience"#)
        default:
            return ("header_invalid", #"an ID token, not an access token (typ "JWT")"#)
        }
    }

    /// A token's header or payload, decoded.
    static func part(_ token: String, _ index: Int) -> [String: Any] {
        let segment = token.split(separator: ".", omittingEmptySubsequences: false)[index]
        let bytes = Base64URL.decode(Array(segment.utf8)) ?? []
        return (try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
    }

    static func flags(_ server: AuthorizationServer, scopes: [String]) -> [String] {
        [
            "--profile", "access-token", "--issuer", server.issuer, "--audience", AuthorizationServer.resource,
            "--jwks", server.jwksURI,
        ] + scopes.flatMap { ["--scope", $0] }
    }

    @Test("discovery: both documents name the issuer, the jwks_uri and the token endpoint Authlib serves")
    func discovery() throws {
        let issued = try Issued()
        let server = issued.server
        #expect(server.issuer == "http://127.0.0.1:\(server.port)")
        for document in [server.openIDConfiguration, server.authorizationServerMetadata] {
            #expect(document["issuer"] as? String == server.issuer)
            #expect(document["jwks_uri"] as? String == server.issuer + "/jwks")
            #expect(document["token_endpoint"] as? String == server.issuer + "/token")
        }
        // Authlib's tokens: its RFC 9068 header, its claims, the key of each algorithm.
        #expect(
            Self.part(issued.rs, 0) as? [String: String] == ["typ": "at+jwt", "alg": "RS256", "kid": "authlib-rs256"])
        #expect(
            Self.part(issued.es, 0) as? [String: String] == ["typ": "at+jwt", "alg": "ES256", "kid": "authlib-es256"])
        #expect(
            Self.part(issued.idToken, 0) as? [String: String] == ["typ": "JWT", "alg": "RS256", "kid": "authlib-rs256"])
        let payload = Self.part(issued.rs, 1)
        #expect(Set(payload.keys) == ["iss", "exp", "client_id", "iat", "jti", "scope", "sub", "aud"])
        #expect(payload["iss"] as? String == server.issuer && payload["aud"] as? String == AuthorizationServer.resource)
        #expect(Self.part(issued.unscoped, 1)["scope"] as? String == "")
    }

    @Test("library: RemoteVerifier on the jwks_uri reads the typed claims; every verdict and reason exact")
    func library() async throws {
        let issued = try Issued()
        let server = issued.server
        for scopes in Self.scopeSets {
            let verifier = RemoteVerifier(
                keySet: .https(server.jwksURI),
                policy: .accessToken(
                    issuer: server.issuer, audiences: [AuthorizationServer.resource], requiredScopes: scopes))
            for (name, token) in issued.all {
                let expected = Self.expected(name, scopes: scopes)
                let outcome: Result<VerifiedToken, VerificationError>
                do { outcome = .success(try await verifier.verify(token)) } catch { outcome = .failure(error) }
                switch outcome {
                case .success(let verified):
                    #expect(expected == nil, "\(name) \(scopes): accepted")
                    let claims = try #require(verified.provider(as: AccessTokenClaims.self))
                    let payload = Self.part(token, 1)
                    #expect(
                        claims.clientID == payload["client_id"] as? String && claims.jwtID == payload["jti"] as? String)
                    #expect(claims.jwtID.utf8.count == 16 && claims.cnf == nil)
                    #expect(verified.claims.subject == claims.clientID, "client credentials: sub is the client")
                    #expect(verified.claims.issuer == server.issuer)
                    #expect(verified.claims.audience == [AuthorizationServer.resource])
                    #expect(verified.keyID == (name == "es" ? "authlib-es256" : "authlib-rs256"))
                    #expect(verified.algorithm == (name == "es" ? .es256 : .rs256))
                    switch name {
                    case "rs":
                        #expect(claims.clientID == "rs-client" && claims.scope == "read write")
                        #expect(claims.scopes == ["read", "write"])
                    case "es":
                        #expect(claims.clientID == "es-client" && claims.scopes == ["read", "write"])
                    default:
                        #expect(claims.clientID == "rs-client" && claims.scope == "" && claims.scopes.isEmpty)
                    }
                case .failure(let error):
                    let got = (error.reason.rawValue, error.detail)
                    #expect(expected.map { $0 == got } == true, "\(name) \(scopes): \(got)")
                }
            }
        }
    }

    @Test("--discover: Authlib's keys found from its issuer, on the library, verify and serve; same verdicts")
    func discoverKeys() async throws {
        let issued = try Issued()
        let server = issued.server
        let scopes = ["read"]
        // Library: a remote key set by discovery of the issuer.
        let verifier = RemoteVerifier(
            keySet: RemoteKeySet.discovering(issuer: server.issuer),
            policy: .accessToken(
                issuer: server.issuer, audiences: [AuthorizationServer.resource], requiredScopes: scopes))
        var library: [String] = []
        for (_, token) in issued.all {
            do {
                _ = try await verifier.verify(token)
                library.append("")
            } catch { library.append(error.reason.rawValue) }
        }
        let expected = issued.all.map { Self.expected($0.name, scopes: scopes)?.reason ?? "" }
        #expect(library == expected)
        // verify --discover.
        let flags = [
            "--profile", "access-token", "--issuer", server.issuer, "--audience", AuthorizationServer.resource,
            "--discover", "--scope", "read",
        ]
        let outcome = try CLIRunner.run(
            ["verify"] + flags, input: Data(issued.all.map { $0.token + "\n" }.joined().utf8))
        #expect(
            outcome.records.map { ($0["valid"] as? Bool) == true ? "" : $0["reason"] as? String ?? "?" } == expected)
        // serve --discover.
        let serve = try ServeProcess(flags + ["--threads", "1"])
        var answers: [String] = []
        for (_, token) in issued.all {
            let answer = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(token))
            answers.append(answer.status == 200 ? "" : answer.header("X-JWT-Reason") ?? "?")
        }
        #expect(answers == expected)
    }

    @Test("jwtverify verify --jwks jwks_uri: the records' verdicts, reasons and claims")
    func verifyCommand() throws {
        let issued = try Issued()
        let input = Data(issued.all.map { $0.token + "\n" }.joined().utf8)
        for scopes in Self.scopeSets {
            let outcome = try CLIRunner.run(["verify"] + Self.flags(issued.server, scopes: scopes), input: input)
            #expect(outcome.status == 1, "\(outcome.stderr)")
            let records = outcome.records
            try #require(records.count == issued.all.count, "\(outcome.stdoutText) \(outcome.stderr)")
            for ((name, token), record) in zip(issued.all, records) {
                if let (reason, detail) = Self.expected(name, scopes: scopes) {
                    #expect(record["valid"] as? Bool == false, "\(name) \(scopes)")
                    #expect(record["reason"] as? String == reason, "\(name) \(scopes): \(record)")
                    #expect(record["detail"] as? String == detail, "\(name) \(scopes): \(record)")
                } else {
                    #expect(record["valid"] as? Bool == true, "\(name) \(scopes): \(record)")
                    let claims = try #require(record["claims"] as? [String: Any])
                    let payload = Self.part(token, 1)
                    #expect(claims["client_id"] as? String == payload["client_id"] as? String)
                    #expect(claims["jti"] as? String == payload["jti"] as? String)
                    #expect(claims["scope"] as? String == payload["scope"] as? String)
                    #expect(claims["sub"] as? String == payload["client_id"] as? String)
                }
            }
        }
    }

    @Test("jwtverify serve --jwks jwks_uri: 200, 403 insufficient_scope with its challenge, 403 audience, 401 ID token")
    func serveCommand() throws {
        let issued = try Issued()
        for scopes in Self.scopeSets {
            let serve = try ServeProcess(Self.flags(issued.server, scopes: scopes) + ["--threads", "1"])
            for (name, token) in issued.all {
                let answer = try RawHTTP.request(serve.port, path: "/auth", headers: ServeTests.bearer(token))
                let challenge = answer.header("WWW-Authenticate")
                switch Self.expected(name, scopes: scopes)?.reason {
                case nil:
                    #expect(answer.status == 200, "\(name) \(scopes): \(answer.status) \(answer.headers)")
                    #expect(answer.header("X-JWT-Sub") == Self.part(token, 1)["client_id"] as? String)
                    #expect(answer.header("X-JWT-Reason") == nil && challenge == nil)
                case "insufficient_scope":
                    #expect(answer.status == 403, "\(name) \(scopes)")
                    #expect(answer.header("X-JWT-Reason") == "insufficient_scope")
                    let named = scopes.joined(separator: " ")
                    #expect(challenge == #"Bearer error="insufficient_scope", scope="\#(named)""#, "\(name) \(scopes)")
                case "audience_mismatch":
                    #expect(answer.status == 403 && answer.header("X-JWT-Reason") == "audience_mismatch", "\(name)")
                    #expect(challenge == nil)
                case let reason:
                    #expect(answer.status == 401 && answer.header("X-JWT-Reason") == reason, "\(name) \(scopes)")
                    #expect(challenge == #"Bearer error="invalid_token", error_description="header_invalid""#)
                }
            }
        }
    }
}
