import Foundation

/// `apple_standin.py` on 127.0.0.1 for one test: a stand-in for Apple's Sign in with Apple REST
/// endpoints, strict to the contract, with two developer teams whose `.p8` keys it knows (made
/// here by the `openssl` command, independently of JWTVerify) and a third key it does not.
package final class AppleStandIn: Sendable {
    /// The client (bundle) ID every team's secrets must name.
    package static let clientID = "com.example.app"
    /// The two registered teams and their key IDs.
    package static let teamA = (team: "TEAMAAAAAA", keyID: "KEYAAAAAAA")
    package static let teamB = (team: "TEAMBBBBBB", keyID: "KEYBBBBBBB")

    private let script: LoopbackScript
    private let folder: URL

    /// Makes the keys and starts the stand-in.
    package init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apple-standin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["a", "b", "stranger"] {
            try Self.openssl([
                "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out",
                folder.appendingPathComponent("\(name).p8").path,
            ])
            try Self.openssl([
                "pkey", "-in", folder.appendingPathComponent("\(name).p8").path, "-pubout", "-out",
                folder.appendingPathComponent("\(name).pub").path,
            ])
        }
        script = try LoopbackScript(
            "apple_standin.py",
            [
                Self.clientID, "\(Self.teamA.team):\(Self.teamA.keyID):\(folder.appendingPathComponent("a.pub").path)",
                "\(Self.teamB.team):\(Self.teamB.keyID):\(folder.appendingPathComponent("b.pub").path)",
            ])
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The base URL to hand a client (`http://127.0.0.1:PORT`).
    package var baseURL: String { script.url("") }
    /// Its identity-token keys.
    package var keysURL: String { script.url("/auth/keys") }

    /// The path of a team's `.p8` key: `a`, `b`, or `stranger` (registered nowhere).
    package func keyPath(_ name: String) -> String { folder.appendingPathComponent("\(name).p8").path }
    /// The bytes of that key.
    package func keyPEM(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: keyPath(name))))
    }

    /// What a user's sign-in leaves: an authorization code for `subject`, whose identity token
    /// will carry SHA-256(`rawNonce`) when given.
    package func authorize(
        subject: String, rawNonce: String? = nil, redirectURI: String? = nil, email: String? = nil, team: String? = nil
    ) throws -> String {
        var request: [String: Any] = ["sub": subject]
        if let rawNonce { request["raw_nonce"] = rawNonce }
        if let redirectURI { request["redirect_uri"] = redirectURI }
        if let email { request["email"] = email }
        if let team { request["team"] = team }
        let answer =
            try JSONSerialization.jsonObject(with: Data(try script.send("/test/authorize", json: request)))
            as? [String: Any]
        return answer?["code"] as? String ?? ""
    }

    /// Makes `code` older by `seconds`.
    package func age(code: String, seconds: Int) throws {
        _ = try script.send("/test/age", json: ["code": code, "seconds": seconds])
    }

    /// How the endpoints answer from now on: `ok`, `error500`, `unavailable503`, `hang`, `html`,
    /// `cut`, `huge`, `bad_signature`, `other_audience`, `redirect`, `revoke_ignored` (`/auth/revoke`
    /// answers 200 but the token keeps working).
    package func mode(_ mode: String) throws { _ = try script.send("/test/mode", json: ["mode": mode]) }

    /// Distinct client secrets accepted, REST requests, and secrets refused.
    package func stats() throws -> (secrets: Int, requests: Int, refusedSecrets: Int) {
        let object =
            try JSONSerialization.jsonObject(with: Data(try script.send("/test/stats"))) as? [String: Int] ?? [:]
        return (object["secrets"] ?? -1, object["requests"] ?? -1, object["refused_secrets"] ?? -1)
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw LoopbackScript.ScriptError.didNotStart }
    }
}
