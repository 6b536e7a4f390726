import Foundation
package import JWTVerify

/// `app_store_server_standin.py` on 127.0.0.1 for one test: a stand-in for Apple's App Store
/// Server API, strict to the contract, with one registered In-App Purchase key (made here by the
/// `openssl` command, independently of JWTVerify) and a stranger key it does not know. Its signed
/// items carry an Apple-shaped chain of ``AppStoreChainFactory``'s, trusted by ``trust``.
package final class AppStoreServerStandIn: Sendable {
    /// The bundle ID the stand-in's app has, and the registered issuer and key.
    package static let bundleID = "com.example.app"
    package static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    package static let keyID = "STOREKEY01"

    private let script: LoopbackScript
    private let chains: AppStoreChainFactory
    /// The synthetic root every signed item chains to.
    package let trust: AppStoreTrust

    /// Makes the keys and the chain, and starts the stand-in for `environment` (`Sandbox` or `Production`).
    package init(environment: String = "Sandbox") throws {
        let chains = try AppStoreChainFactory()
        self.chains = chains
        try chains.root("root")
        try chains.issue("intermediate", by: "root", section: "ca")
        try chains.issue("leaf", by: "intermediate", section: "leaf")
        for name in ["registered", "stranger"] {
            try chains.key(name)
            try chains.openssl(["pkey", "-in", "\(name).key", "-pubout", "-out", "\(name).pub"])
        }
        let lines = try ["leaf", "intermediate", "root"].map { try chains.x5c($0) }.joined(separator: "\n")
        try Data(lines.utf8).write(to: chains.directory.appendingPathComponent("chain.txt"))
        trust = try chains.trust("root")
        let folder = chains.directory
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        script = try LoopbackScript(
            "app_store_server_standin.py",
            [
                Self.bundleID, Self.issuerID, "\(Self.keyID):\(path("registered.pub"))", environment,
                path("leaf.key"), path("chain.txt"),
            ])
    }

    /// The base URL to hand a client (`http://127.0.0.1:PORT`).
    package var baseURL: String { script.url("") }

    /// The path of a `.p8` key: `registered`, or `stranger` (registered nowhere).
    package func keyPath(_ name: String) -> String { chains.directory.appendingPathComponent("\(name).key").path }
    /// The bytes of that key.
    package func keyPEM(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: keyPath(name))))
    }
    /// The path of the root certificate (for `--apple-root`).
    package var rootPath: String { chains.directory.appendingPathComponent("root.pem").path }

    /// A bearer token as Apple documents it, made with the test support's own ES256 signer (not
    /// JWTVerify's token signer): each part can be set wrong.
    package func bearer(
        key: String = "registered", keyID: String = AppStoreServerStandIn.keyID,
        issuer: String = AppStoreServerStandIn.issuerID, bundleID: String = AppStoreServerStandIn.bundleID,
        audience: String = "appstoreconnect-v1", issuedAt: Double, lifetime: Double
    ) throws -> String {
        let payload =
            #"{"iss":"\#(issuer)","iat":\#(Int64(issuedAt)),"exp":\#(Int64(issuedAt + lifetime)),"aud":"\#(audience)","bid":"\#(bundleID)"}"#
        return TokenFactory.token(
            header: #"{"alg":"ES256","kid":"\#(keyID)","typ":"JWT"}"#, payload: payload,
            signer: TokenFactory.Signer(kid: keyID, algorithm: .es256, key: try chains.privateKey(key)))
    }

    /// How the API answers from now on: `ok`, `rate_limit`, `error500`, `hang`, `html`, `huge`,
    /// `redirect`, `tamper`, `wrong_bundle`, `wrong_kind`, `endless`, `stale_revision` (see the script).
    package func mode(_ mode: String) throws { _ = try script.send("/test/mode", json: ["mode": mode]) }

    /// Distinct bearer tokens accepted, tokens refused, API requests, and the history requests' query strings.
    package func stats() throws -> (tokens: Int, refused: Int, requests: Int, historyQueries: [String]) {
        let object = try JSONSerialization.jsonObject(with: Data(try script.send("/test/stats"))) as? [String: Any]
        return (
            object?["tokens"] as? Int ?? -1, object?["refused"] as? Int ?? -1, object?["requests"] as? Int ?? -1,
            object?["history_queries"] as? [String] ?? []
        )
    }
}
