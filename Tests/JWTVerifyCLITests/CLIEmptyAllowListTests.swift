import Foundation
import Testing

/// The command line refuses a policy that would accept nothing, as a usage error (64).
@Suite("jwtverify empty allow-lists")
struct CLIEmptyAllowListTests {
    @Test("--audience '', --issuer '' and --bundle-id '' are usage errors that say why; verify and serve alike")
    func emptyValues() throws {
        let cases: [([String], String)] = [
            (
                ["--issuer", "https://i", "--audience", ""],
                "--audience takes a non-empty audience (an empty one accepts no token)"
            ),
            (["--issuer", "", "--audience", "a"], "--issuer takes a non-empty issuer (an empty one accepts no token)"),
            (
                ["--profile", "apple", "--audience", ""],
                "--audience takes a non-empty audience (an empty one accepts no token)"
            ),
            (
                ["--profile", "app-store", "--bundle-id", ""],
                "--bundle-id takes a non-empty bundle ID (an empty one accepts no token)"
            ),
        ]
        for (flags, message) in cases {
            for command in ["verify", "serve"] {
                let outcome = try CLIRunner.run([command, "--jwks", "Vectors/jwks.json"] + flags)
                #expect(outcome.status == 64, "\(command) \(flags)")
                #expect(outcome.stderr.contains(message), "\(command) \(flags): \(outcome.stderr)")
            }
        }
        let noAudience = try CLIRunner.run(["verify", "--profile", "apple", "--jwks", "Vectors/jwks.json"])
        #expect(noAudience.status == 64)
        #expect(noAudience.stderr.contains("--audience is required"), "\(noAudience.stderr)")
        let algorithms = try CLIRunner.run([
            "verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--algorithms", ",",
        ])
        #expect(algorithms.status == 64)
        #expect(algorithms.stderr.contains("--algorithms needs at least one algorithm"))
    }
}
