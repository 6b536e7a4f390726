import Foundation
import JWTVerifyTestSupport
import Testing

/// `--cache` changes speed only: the same records, report and exit status, and a counter line.
@Suite("jwtverify with the verified-token cache")
struct CLICacheTests {
    static let samples = SharedVectors.projectVectors.appendingPathComponent("samples/apple-identity-tokens.jsonl")
    static let flags = [
        "--jwks", SharedVectors.projectVectors.appendingPathComponent("jwks.json").path, "--issuer",
        "https://appleid.apple.com",
        "--audience", "com.example.app", "--now", "2026-01-01T00:00:00Z", "--threads", "2",
    ]

    /// The samples three times over: every valid token is met again twice.
    static func input() throws -> Data {
        let once = try Data(contentsOf: samples)
        return once + once + once
    }

    @Test("verify --cache: identical records and exit status; the summary counts the hits")
    func verify() throws {
        let plain = try CLIRunner.run(["verify"] + Self.flags, input: try Self.input())
        let cached = try CLIRunner.run(["verify", "--cache", "1000"] + Self.flags, input: try Self.input())
        #expect(plain.status == 1)
        #expect(cached.status == plain.status)
        #expect(cached.stdout == plain.stdout)
        let valid = plain.records.filter { $0["valid"] as? Bool == true }.count
        #expect(valid == 21)  // 7 valid samples, three times
        #expect(!plain.stderr.contains("cache:"))
        #expect(cached.stderr.contains("cache: "), "\(cached.stderr)")
        // On one thread the counts are exact: 7 valid samples met twice more each; 3 of the 27 lines never reach the cache (too large, not a token). (On two, a
        // repeat can be verified while its first occurrence still is, and both miss.)
        let single = try CLIRunner.run(
            ["verify", "--cache", "1000"] + Self.flags + ["--threads", "1"], input: try Self.input())
        #expect(single.stdout == plain.stdout)
        #expect(
            single.stderr.contains("cache: 14 hits, 64 misses, 7 insertions, 0 evictions, 0 invalidations"),
            "\(single.stderr)")
    }

    @Test("audit --cache: the same report and the same records")
    func audit() throws {
        for format in ["json", "jsonl"] {
            let plain = try CLIRunner.run(["audit", "--format", format, "-q"] + Self.flags, input: try Self.input())
            let cached = try CLIRunner.run(
                ["audit", "--format", format, "-q", "--cache", "1000"] + Self.flags, input: try Self.input())
            #expect(cached.status == plain.status)
            #expect(cached.stdout == plain.stdout, "\(format)")
            #expect(!plain.stdout.isEmpty)
        }
    }

    @Test("--cache takes a count; 0 is off")
    func usage() throws {
        #expect(try CLIRunner.run(["verify", "--cache", "x"] + Self.flags).status == 64)
        #expect(try CLIRunner.run(["verify", "--cache", "-1"] + Self.flags).status == 64)
        let off = try CLIRunner.run(["verify", "--cache", "0"] + Self.flags, input: try Self.input())
        #expect(off.status == 1)
        #expect(!off.stderr.contains("cache:"))
    }
}
