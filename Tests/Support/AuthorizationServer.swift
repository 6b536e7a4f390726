package import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A real OAuth 2.0 authorization server for one test: Authlib (from PyPI, in the virtual
/// environment `make authlib-deps` makes) running `Tests/AuthorizationServer/authlib_server.py`
/// on 127.0.0.1. Authlib issues RFC 9068 access tokens (client credentials grant, RS256 and ES256)
/// and OpenID Connect ID tokens (implicit grant), and serves discovery and its JWKS.
///
/// Stopped when released, or by ``stop()``: stdin closed and SIGTERM, then SIGKILL if it lingers.
/// The server also ends by itself when stdin closes, so a test process that dies leaves no server.
package final class AuthorizationServer: @unchecked Sendable {
    // Safety: `stopped` is guarded by `lock`; everything else is set in init.

    /// The resource (`aud`) the `rs-client` and `es-client` tokens are for.
    package static let resource = "https://api.example.com"
    /// The resource the `other-client` tokens are for.
    package static let otherResource = "https://other.example.com"

    /// The Python of the virtual environment (`.build/authlib-venv`), or `JWTVERIFY_AUTHLIB_PYTHON`.
    package static let python: URL = {
        if let override = ProcessInfo.processInfo.environment["JWTVERIFY_AUTHLIB_PYTHON"] {
            return URL(fileURLWithPath: override)
        }
        return SharedVectors.repositoryRoot.appendingPathComponent(".build/authlib-venv/bin/python")
    }()

    /// Whether the virtual environment is there. When it is not, the suites that need it are
    /// disabled and say why (``missingMessage``).
    package static let available = FileManager.default.isExecutableFile(atPath: python.path)

    /// Why the Authlib suites were skipped.
    package static let missingMessage =
        "Authlib's virtual environment not found at \(python.path): run 'make authlib-deps'; Authlib tests SKIPPED"

    package enum ServerError: Error {
        case didNotStart(String)
        case requestFailed(String)
    }

    /// The server's port on 127.0.0.1.
    package let port: Int
    /// Its issuer identifier, `http://127.0.0.1:PORT`, as its discovery documents state it.
    package let issuer: String
    /// `jwks_uri` from its `/.well-known/openid-configuration`.
    package let jwksURI: String
    /// `/.well-known/openid-configuration`, parsed.
    package let openIDConfiguration: [String: Any]
    /// `/.well-known/oauth-authorization-server` (RFC 8414), parsed.
    package let authorizationServerMetadata: [String: Any]

    private let process: Process
    private let stdin: Pipe
    private let session: URLSession
    private let lock = NSLock()
    private var stopped = false

    /// Starts the server and reads its discovery documents.
    package init() throws {
        let script = SharedVectors.repositoryRoot.appendingPathComponent(
            "Tests/AuthorizationServer/authlib_server.py")
        process = Process()
        process.executableURL = Self.python
        process.arguments = [
            script.path, "--resource", Self.resource, "--other-resource", Self.otherResource,
        ]
        stdin = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = errors
        session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            session.invalidateAndCancel()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw ServerError.didNotStart(said)
        }
        // Nothing reads stderr from here on: a quiet server writes nothing, and a full pipe
        // could only block a server that is failing anyway.
        self.port = port
        let base = "http://127.0.0.1:\(port)"
        do {
            openIDConfiguration = try Self.object(Self.send(session, base + "/.well-known/openid-configuration").body)
            authorizationServerMetadata = try Self.object(
                Self.send(session, base + "/.well-known/oauth-authorization-server").body)
        } catch {
            kill(process.processIdentifier, SIGKILL)
            session.invalidateAndCancel()
            throw error
        }
        issuer = openIDConfiguration["issuer"] as? String ?? ""
        jwksURI = openIDConfiguration["jwks_uri"] as? String ?? ""
    }

    deinit { stop() }

    /// Ends the server (idempotent): closes its stdin, sends SIGTERM, and after 2 s SIGKILL.
    package func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? stdin.fileHandleForWriting.close()
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        // Not waitUntilExit(): on Linux it can block when called from another thread than the one
        // that launched the process (async tests hop threads). Foundation reaps it; poll.
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        session.invalidateAndCancel()
    }

    /// What the token endpoint answered.
    package struct TokenResponse {
        /// The HTTP status.
        package let status: Int
        /// The JSON body, parsed.
        package let body: [String: Any]
        /// `access_token`, or "" when there is none.
        package var accessToken: String { body["access_token"] as? String ?? "" }
    }

    /// A client credentials grant (RFC 6749 §4.4) at the `token_endpoint` of the discovery
    /// document, as `client` (`rs-client`: RS256, `es-client`: ES256, `other-client`: RS256 for
    /// ``otherResource``) authenticated with HTTP Basic, asking for `scope` when given.
    package func clientCredentials(client: String, scope: String? = nil) throws -> TokenResponse {
        let endpoint = openIDConfiguration["token_endpoint"] as? String ?? ""
        var form = "grant_type=client_credentials"
        if let scope { form += "&scope=" + (scope.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        let credentials = Data("\(client):\(client)-secret".utf8).base64EncodedString()
        let answer = try Self.send(
            session, endpoint, method: "POST", body: Data(form.utf8),
            headers: [
                "Authorization": "Basic \(credentials)", "Content-Type": "application/x-www-form-urlencoded",
            ])
        return TokenResponse(status: answer.status, body: try Self.object(answer.body))
    }

    /// An OpenID Connect ID token for `web-client`, by Authlib's implicit grant
    /// (`response_type=id_token`): the `authorization_endpoint` grants the test user at once and
    /// redirects, and this reads the token from the redirect's fragment as a browser would.
    package func idToken(nonce: String) throws -> String {
        let endpoint = openIDConfiguration["authorization_endpoint"] as? String ?? ""
        let query = [
            ("response_type", "id_token"), ("client_id", "web-client"), ("redirect_uri", "http://127.0.0.1/callback"),
            ("scope", "openid"), ("nonce", nonce),
        ].map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        let answer = try Self.send(session, endpoint + "?" + query.joined(separator: "&"))
        guard answer.status == 302, let location = answer.location,
            let fragment = URLComponents(string: location)?.fragment
        else {
            throw ServerError.requestFailed("no redirect with an ID token: \(answer.status) \(answer.location ?? "")")
        }
        var parts = URLComponents()
        parts.percentEncodedQuery = fragment
        guard let token = parts.queryItems?.first(where: { $0.name == "id_token" })?.value else {
            throw ServerError.requestFailed("no id_token in \(location)")
        }
        return token
    }

    private static func object(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ServerError.requestFailed("not a JSON object: \(String(decoding: data, as: UTF8.self))")
        }
        return object
    }

    private static func send(
        _ session: URLSession, _ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:]
    ) throws -> (status: Int, location: String?, body: Data) {
        guard let target = URL(string: url) else { throw ServerError.requestFailed("bad URL \(url)") }
        var request = URLRequest(url: target, timeoutInterval: 10)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let semaphore = DispatchSemaphore(value: 0)
        let box = AnswerBox()
        session.dataTask(with: request) { data, response, error in
            if let response = response as? HTTPURLResponse, error == nil {
                box.answer = (response.statusCode, response.value(forHTTPHeaderField: "Location"), data ?? Data())
            }
            semaphore.signal()
        }.resume()
        semaphore.wait()
        guard let answer = box.answer else { throw ServerError.requestFailed("\(method) \(url): no answer") }
        return answer
    }
}

/// Keeps a redirect as the answer: the implicit grant's redirect goes to the client, whose
/// fragment the test reads.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

private final class AnswerBox: @unchecked Sendable {
    // Safety: written by the session's queue before the semaphore is signalled, read after.
    var answer: (status: Int, location: String?, body: Data)?
}
