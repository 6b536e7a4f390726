import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `jwtverify verify` matches names and claims as bytes, and refuses a `jti` that is not a string.
@Suite("jwtverify exact bytes")
struct CLIExactBytesTests {
    @Test("verify: a jti that is a number, object, array, boolean or null is claim_type; a string jti passes")
    func jtiType() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let keys = workspace.jwks.path
        let kinds = ["7", "1.5", #"{"a":1}"#, #"["x"]"#, "true", "false", "null", #""id-1""#]
        let input =
            kinds.map { TokenFactory.token(payload: TokenFactory.claims(extra: #""jti":"# + $0)) }.joined(
                separator: "\n") + "\n"
        let flags = ["--jwks", keys, "--now", "1700001000"]
        for policy in [
            ["--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience],
            ["--profile", "apple", "--audience", TokenFactory.audience, "--skip-nonce"],
        ] {
            let outcome = try CLIRunner.run(["verify"] + policy + flags, input: Data(input.utf8))
            #expect(outcome.status == 1)
            let records = outcome.records
            #expect(records.count == kinds.count)
            for (index, record) in records.enumerated() {
                if index == kinds.count - 1 {
                    #expect(record["valid"] as? Bool == true)
                } else {
                    #expect(record["reason"] as? String == "claim_type", "\(kinds[index])")
                    #expect(record["detail"] as? String == "jti is not a string")
                }
            }
        }
    }

    @Test("--profile names are bytes: a look-alike spelling is a usage error (64)")
    func profileName() throws {
        for name in ["firebase-app-chec\u{212A}", "\u{FF41}pple", "apple\u{200B}", "Apple"] {
            let outcome = try CLIRunner.run([
                "verify", "--profile", name, "--audience", "a", "--jwks", "Vectors/jwks.json",
            ])
            #expect(outcome.status == 64, "\(name)")
            #expect(outcome.stderr.contains("--profile takes"))
        }
    }
}
