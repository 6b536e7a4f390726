import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The README's exit-status table, row by row: each status is produced by the real binary in the
/// situation the row names, and the table lists exactly the statuses tested here (70, a bug, has
/// no way to be produced on purpose).
@Suite("exit statuses as the README's table says")
struct ExitStatusTests {
    /// The statuses in the README's "Exit status" table.
    static func readmeStatuses() throws -> [Int32] {
        let readme = try String(
            contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### Exit status\n").dropFirst().first)
        return section.split(separator: "\n").prefix { !$0.hasPrefix("#") }.compactMap { line -> Int32? in
            guard line.hasPrefix("| ") else { return nil }
            return Int32(line.dropFirst(2).prefix { $0 != " " })
        }
    }

    @Test("every row of the table is produced by its situation")
    func everyRow() throws {
        let workspace = try TestWorkspace("exit", keysFile: "keys.json")
        let directory = workspace.directory
        let keys = workspace.jwks.path
        let unusable = directory.appendingPathComponent("unusable.json").path
        try #"{"keys":[{"kty":"RSA","kid":"small","n":"AQAB","e":"AQAB"}]}"#.write(
            toFile: unusable, atomically: true, encoding: .utf8)
        let notAFolder = directory.appendingPathComponent("file").path
        try "x".write(toFile: notAFolder, atomically: true, encoding: .utf8)
        let flags = [
            "--jwks", keys, "--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience, "--now", "1700001000",
        ]
        let valid = Data((TokenFactory.token(payload: TokenFactory.claims()) + "\n").utf8)
        let expired = Data((TokenFactory.token(payload: TokenFactory.claims(exp: "1700000100")) + "\n").utf8)

        var seen: [Int32: String] = [:]
        func check(
            _ status: Int32, _ name: String, _ arguments: [String], input: Data = Data(), stderrHas: String? = nil
        ) throws {
            let outcome = try CLIRunner.run(arguments, input: input)
            #expect(outcome.status == status, "\(name): \(outcome.stderr)")
            if let stderrHas { #expect(outcome.stderr.contains(stderrHas), "\(name): \(outcome.stderr)") }
            seen[status] = name
        }
        try check(0, "every token valid", ["verify"] + flags, input: valid)
        try check(1, "a token rejected", ["verify"] + flags, input: expired)
        try check(
            64, "a bad flag", ["verify", "--bogus"] + flags, stderrHas: "Run 'jwtverify verify --help' for usage.")
        try check(
            64, "an unknown command", ["verfiy"],
            stderrHas: "did you mean \"verify\"?\nRun 'jwtverify --help' for usage.")
        try check(
            65, "no usable key", ["verify", "--jwks", unusable, "--issuer", "i", "--audience", "a"],
            stderrHas: "no usable key")
        let empty = directory.appendingPathComponent("empty.json").path
        try #"{"keys":[]}"#.write(toFile: empty, atomically: true, encoding: .utf8)
        try check(65, "jwks show of an empty set", ["jwks", "show", empty], stderrHas: "no key at all in")
        try check(
            66, "an input file missing", ["verify"] + flags + [directory.appendingPathComponent("absent.txt").path])
        try check(66, "a folder as input", ["verify"] + flags + [directory.path])
        try check(66, "a folder as key set", ["verify", "--jwks", directory.path, "--issuer", "i", "--audience", "a"])
        try check(
            66, "inspect of a missing file", ["inspect", directory.appendingPathComponent("missing.txt").path],
            stderrHas: "cannot open")
        try check(
            69, "a remote key set unreachable",
            ["verify", "--jwks", "http://127.0.0.1:9/keys", "--issuer", "i", "--audience", "a"])
        try check(
            73, "--jwks-cache naming a file", ["verify", "--jwks-cache", notAFolder] + flags, input: valid,
            stderrHas: "not a folder")
        try check(78, "bench in a debug build", ["bench"])

        // 71: serve on a port another server holds: one line on stderr, no crash.
        let holder = try ServeProcess(["--jwks", keys, "--issuer", "i", "--audience", "a"])
        let busy = try CLIRunner.run([
            "serve", "--jwks", keys, "--issuer", "i", "--audience", "a", "--listen", "127.0.0.1:\(holder.port)",
        ])
        #expect(busy.status == 71, "\(busy.stderr)")
        #expect(busy.stderr == "jwtverify: error: cannot listen on 127.0.0.1:\(holder.port): Address already in use\n")
        seen[71] = "serve on a busy port"

        // 74: output that cannot be written (a full device).
        let full = try CLIRunner.runToFile(["verify"] + flags, input: valid, stdout: "/dev/full")
        #expect(full.status == 74, "\(full.stderr)")
        seen[74] = "output to a full device"

        let table = try Self.readmeStatuses()
        #expect(Set(table) == Set(seen.keys).union([70]), "README rows \(table.sorted()), tested \(seen.keys.sorted())")
    }
}
