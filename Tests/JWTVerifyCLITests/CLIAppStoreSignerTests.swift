import Foundation
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// `jwtverify apple store-token` and the other App Store signers, run through the built binary:
/// stdout is the JWT (or the V1 signature's JSON object) and nothing else, each checked by
/// `jwtverify verify` or our signature check and by Python `cryptography`; usage errors are 64, a
/// missing key file 66, an unusable key 65.
@Suite("apple App Store signers")
struct CLIAppStoreSignerTests {
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    /// A workspace with the EC test key as a `.p8` and as a JWKS.
    struct Keys {
        let workspace: TestWorkspace
        let p8: URL
        let jwks: URL
        init() throws {
            workspace = try TestWorkspace("store-signers", keysFile: "keys.json")
            p8 = workspace.file("SubscriptionKey_2X9R4HXF34.p8")
            try Data(TokenFactory.ec.key.pkcs8PEM()).write(to: p8)
            jwks = workspace.file("ec.json")
            try Data("{\"keys\":[\(TokenFactory.ec.jwkJSON)]}".utf8).write(to: jwks)
        }
        /// `--issuer-id`, `--key-id`, `--key`, `--bundle-id`.
        var key: [String] {
            [
                "--issuer-id", CLIAppStoreSignerTests.issuerID, "--key-id", "ec-a", "--key", p8.path,
                "--bundle-id", "com.example.app",
            ]
        }
    }

    @Test("store-token: one line, a JWT that verify accepts as the issuer's for appstoreconnect-v1, at most an hour")
    func storeToken() throws {
        let keys = try Keys()
        let made = try CLIRunner.run(["apple", "store-token"] + keys.key + ["--lifetime", "900"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.isEmpty)
        let lines = made.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty)
        let token = String(lines[0])
        #expect(token.split(separator: ".").count == 3)
        let verified = try CLIRunner.run(
            [
                "verify", "--jwks", keys.jwks.path, "--issuer", Self.issuerID, "--audience", "appstoreconnect-v1",
                "--algorithms", "ES256",
            ],
            input: Data((token + "\n").utf8))
        #expect(verified.status == 0, "\(verified.stderr)")
        let record = try #require(verified.records.first)
        #expect(record["valid"] as? Bool == true)
        let iat = try #require(record["iat"] as? Double)
        #expect(record["exp"] as? Double == iat + 900)
        let answers = try AppleSignerJudge.judge([try AppleSignerJudge.jwsCase(token, jwkJSON: TokenFactory.ec.jwkJSON)]
        )
        #expect(answers[0]["valid"] as? Bool == true)
        let claims = try #require(answers[0]["claims"] as? [String: Any])
        #expect(claims["bid"] as? String == "com.example.app" && claims["iss"] as? String == Self.issuerID)
        #expect(Set(claims.keys) == ["iss", "iat", "exp", "aud", "bid"])

        // The default lifetime is the longest Apple takes.
        let byDefault = try CLIRunner.run(["apple", "store-token"] + keys.key)
        #expect(byDefault.status == 0)
        let defaultClaims = try #require(
            try AppleSignerJudge.judge([
                try AppleSignerJudge.jwsCase(
                    byDefault.stdoutText.trimmingCharacters(in: .newlines),
                    jwkJSON: TokenFactory.ec.jwkJSON)
            ])[0]["claims"] as? [String: Any])
        #expect((defaultClaims["exp"] as? Int ?? 0) - (defaultClaims["iat"] as? Int ?? 0) == 3600)
    }

    @Test("store-token: over 60 minutes, a part missing or a Sign in with Apple option is 64; files 66 and 65")
    func storeTokenFailures() throws {
        let keys = try Keys()
        let tooLong = try CLIRunner.run(["apple", "store-token"] + keys.key + ["--lifetime", "3601"])
        #expect(tooLong.status == 64)
        #expect(tooLong.stderr.contains("--lifetime takes 1 to 3600 seconds"), "\(tooLong.stderr)")
        #expect(tooLong.stdout.isEmpty)
        #expect(try CLIRunner.run(["apple", "store-token"] + keys.key + ["--lifetime", "0"]).status == 64)
        let noBundle = try CLIRunner.run(["apple", "store-token"] + keys.key.dropLast(2))
        #expect(noBundle.status == 64)
        #expect(noBundle.stderr.contains("--issuer-id, --key-id, --key and --bundle-id are required"))
        let foreign = try CLIRunner.run(["apple", "store-token"] + keys.key + ["--team-id", "T"])
        #expect(foreign.status == 64 && foreign.stderr.contains("apple store-token takes no --team-id"))
        var missing = keys.key
        missing[5] = "/nonexistent.p8"
        #expect(try CLIRunner.run(["apple", "store-token"] + missing).status == 66)
        let p384 = keys.workspace.file("p384.p8")
        try Data(try EVPPrivateKey.generateEC(curve: "P-384").pkcs8PEM()).write(to: p384)
        var wrongCurve = keys.key
        wrongCurve[5] = p384.path
        let refused = try CLIRunner.run(["apple", "store-token"] + wrongCurve)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("the key is not an EC P-256 key"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
    }
}
