import Foundation
import JWTVerifyTestSupport
import Testing

/// `--jwks URL`, `--jwks-cache`, and `jwks fetch|show` against a real HTTP origin on 127.0.0.1.
@Suite("jwtverify with remote key sets", .serialized)
struct CLIRemoteKeySetTests {
    static let jwks =
        (try? String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("Vectors/jwks.json"), encoding: .utf8))
        ?? ""
    static let token = Data((CLITests.validTokens[0] + "\n").utf8)

    static func flags(_ source: String, _ extra: [String] = []) -> [String] {
        [
            "verify", "--jwks", source, "--issuer", "https://appleid.apple.com", "--audience", "com.example.app",
            "--now", "1767225600",
        ]
            + extra
    }

    @Test("--jwks URL fetches the key set; --jwks-cache serves later runs from the snapshot")
    func cache() throws {
        let origin = try OriginServer()
        try origin.set(["document": Self.jwks, "max_age": 600])
        let workspace = try TestWorkspace("remote", withKeys: false)
        let cache = workspace.directory
        let first = try CLIRunner.run(Self.flags(origin.keysURL, ["--jwks-cache", cache.path]), input: Self.token)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CLIRunner.run(Self.flags(origin.keysURL, ["--jwks-cache", cache.path]), input: Self.token)
        #expect(second.status == 0)
        #expect(try origin.stats().requests == 1)
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(snapshots.count == 1 && snapshots[0].hasPrefix("jwks-"))
    }

    @Test("an expired snapshot is revalidated; when the origin fails, stale keys serve with a warning")
    func staleIfError() throws {
        let origin = try OriginServer()
        try origin.set(["document": Self.jwks, "max_age": 1, "etag": "\"s1\""])
        let workspace = try TestWorkspace("remote", withKeys: false)
        let cache = workspace.directory
        let ttl = ["--jwks-cache", cache.path, "--jwks-min-ttl", "1", "--jwks-max-ttl", "1"]
        #expect(try CLIRunner.run(Self.flags(origin.keysURL, ttl), input: Self.token).status == 0)
        usleep(1_200_000)
        let revalidated = try CLIRunner.run(Self.flags(origin.keysURL, ttl), input: Self.token)
        #expect(revalidated.status == 0)
        // On a loaded machine a slow origin can fail this fetch (stale keys then serve, with a
        // warning on stderr): say so, rather than only that no 304 was counted.
        let stats = try origin.stats()
        #expect(stats.notModified == 1, "origin saw \(stats); the run's stderr: \(revalidated.stderr)")
        usleep(1_200_000)
        try origin.set(["mode": "error"])
        let stale = try CLIRunner.run(Self.flags(origin.keysURL, ttl), input: Self.token)
        #expect(stale.status == 0)
        #expect(stale.stderr.contains("stale cached keys"))
        #expect(stale.records.first?["valid"] as? Bool == true)
    }

    @Test("an unreachable key set with no snapshot exits 69")
    func unavailable() throws {
        let outcome = try CLIRunner.run(Self.flags("http://127.0.0.1:9/keys"), input: Self.token)
        #expect(outcome.status == 69)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("no keys"))
    }

    @Test("jwks fetch writes the document as served; jwks show tells when remote keys were fetched and expire")
    func fetchAndShow() throws {
        let origin = try OriginServer()
        try origin.set(["document": Self.jwks, "max_age": 3600])
        let workspace = try TestWorkspace("remote", withKeys: false)
        let directory = workspace.directory
        let file = directory.appendingPathComponent("apple-snapshot.json")
        let fetched = try CLIRunner.run(["jwks", "fetch", origin.keysURL, "-o", file.path])
        #expect(fetched.status == 0)
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.jwks)
        #expect(try CLIRunner.run(Self.flags(file.path), input: Self.token).status == 0)
        let shown = try CLIRunner.run(["jwks", "show", origin.keysURL])
        #expect(shown.status == 0)
        #expect(shown.stdoutText.contains("# \(origin.keysURL): fetched "))
        #expect(shown.stdoutText.contains("W6WcOKB6X1"))
        let json = try CLIRunner.run(["jwks", "show", "--json", origin.keysURL])
        #expect(json.records.count == 4)
        #expect(json.records.allSatisfy { $0["source"] as? String == origin.keysURL && $0["expires_at"] is String })
        try origin.set(["mode": "garbage"])
        #expect(try CLIRunner.run(["jwks", "fetch", origin.keysURL]).status == 65)
        #expect(try CLIRunner.run(["jwks", "fetch", "Vectors/jwks.json"]).status == 64)
    }
}
