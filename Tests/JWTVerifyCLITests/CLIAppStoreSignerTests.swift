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

    /// The claims of a JWS on stdout, after checking it is one line and cryptography accepts it.
    static func judgedClaims(_ outcome: CLIRunner.Outcome) throws -> [String: Any] {
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty)
        let answer = try AppleSignerJudge.judge([
            try AppleSignerJudge.jwsCase(String(lines[0]), jwkJSON: TokenFactory.ec.jwkJSON)
        ])[0]
        #expect(answer["valid"] as? Bool == true)
        #expect((answer["header"] as? [String: String]) == ["alg": "ES256", "kid": "ec-a", "typ": "JWT"])
        return answer["claims"] as? [String: Any] ?? [:]
    }

    @Test("promotional-offer --version 2 and intro-offer-eligibility print one JWS with the given claims")
    func offerJWS() throws {
        let keys = try Keys()
        let v2 = try Self.judgedClaims(
            try CLIRunner.run(
                ["apple", "promotional-offer", "--version", "2"] + keys.key + [
                    "--product-id", "com.example.monthly", "--offer-id", "WINBACK1", "--transaction-id", "2000000001",
                    "--nonce", "6F9619FF-8B86-D011-B42D-00C04FC964FF",
                ]))
        #expect(v2["aud"] as? String == "promotional-offer" && v2["offerIdentifier"] as? String == "WINBACK1")
        #expect(v2["productId"] as? String == "com.example.monthly" && v2["transactionId"] as? String == "2000000001")
        #expect(v2["nonce"] as? String == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(Set(v2.keys) == ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier", "transactionId"])
        let intro = try Self.judgedClaims(
            try CLIRunner.run(
                ["apple", "intro-offer-eligibility"] + keys.key + [
                    "--product-id", "com.example.yearly", "--allow", "false", "--transaction-id", "2000000002",
                ]))
        #expect(intro["aud"] as? String == "introductory-offer-eligibility")
        #expect(intro["allowIntroductoryOffer"] as? Bool == false && intro["transactionId"] as? String == "2000000002")
        #expect(intro["bid"] as? String == "com.example.app" && intro["iss"] as? String == Self.issuerID)
    }

    @Test("advanced-commerce signs the request file's bytes; a file that is not a JSON object is 65, none 66")
    func advancedCommerce() throws {
        let keys = try Keys()
        let request = keys.workspace.file("request.json")
        let bytes = Data(#"{"operation":"CREATE_SUBSCRIPTION","items":[{"SKU":"a"}]}"#.utf8 + [0x0A])
        try bytes.write(to: request)
        let claims = try Self.judgedClaims(
            try CLIRunner.run(["apple", "advanced-commerce"] + keys.key + ["--request", request.path]))
        #expect(claims["aud"] as? String == "advanced-commerce-api")
        #expect(claims["request"] as? String == bytes.base64EncodedString())
        let notObject = keys.workspace.file("array.json")
        try Data("[1,2]".utf8).write(to: notObject)
        let refused = try CLIRunner.run(["apple", "advanced-commerce"] + keys.key + ["--request", notObject.path])
        #expect(refused.status == 65 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("the Advanced Commerce request is not one JSON object"), "\(refused.stderr)")
        #expect(
            try CLIRunner.run(["apple", "advanced-commerce"] + keys.key + ["--request", "/nonexistent.json"]).status
                == 66)
        #expect(try CLIRunner.run(["apple", "advanced-commerce"] + keys.key).status == 64)
    }

    @Test(
        "promotional-offer --version 1 prints signature, nonce, timestamp and keyIdentifier; cryptography rebuilds the bytes"
    )
    func offerV1() throws {
        let keys = try Keys()
        let made = try CLIRunner.run([
            "apple", "promotional-offer", "--version", "1", "--key-id", "ec-a", "--key", keys.p8.path, "--bundle-id",
            "com.example.app", "--product-id", "com.example.monthly", "--offer-id", "WINBACK1",
            "--app-account-token", "E3A6A1B2-0C44-4D5E-9F00-1234567890AB", "--timestamp", "1700001000123",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: made.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["signature", "nonce", "timestamp", "keyIdentifier"])
        #expect(object["timestamp"] as? Int == 1_700_001_000_123 && object["keyIdentifier"] as? String == "ec-a")
        let nonce = try #require(object["nonce"] as? String)
        #expect(nonce == nonce.lowercased() && nonce.count == 36)
        var item = try AppleSignerJudge.publicKey(jwkJSON: TokenFactory.ec.jwkJSON)
        item["v1"] = object["signature"] as? String ?? ""
        item.merge(
            [
                "bundleId": "com.example.app", "keyId": "ec-a", "productId": "com.example.monthly",
                "offerId": "WINBACK1", "appAccountToken": "E3A6A1B2-0C44-4D5E-9F00-1234567890AB", "nonce": nonce,
                "timestamp": 1_700_001_000_123,
            ]
        ) { $1 }
        let answer = try AppleSignerJudge.judge([item])[0]
        #expect(answer["valid"] as? Bool == true)
    }

    @Test("the offer signers' usage errors are 64 with a message, before any key is read")
    func offerUsage() throws {
        let keys = try Keys()
        let offer = ["--product-id", "p", "--offer-id", "o"]
        let cases: [([String], String)] = [
            (["promotional-offer"] + keys.key + offer, "needs --version 2 or --version 1"),
            (["promotional-offer", "--version", "3"] + keys.key + offer, "--version takes 2 or 1"),
            (["promotional-offer", "--version", "2"] + keys.key + ["--product-id", "p"], "needs --offer-id"),
            (["promotional-offer", "--version", "2"] + keys.key + ["--offer-id", "o"], "needs --product-id"),
            (
                ["promotional-offer", "--version", "2"] + keys.key + offer + ["--timestamp", "1"],
                "--app-account-token and --timestamp are for --version 1"
            ),
            (
                ["promotional-offer", "--version", "1"] + keys.key + offer + ["--transaction-id", "1"],
                "--transaction-id is for --version 2"
            ),
            (["promotional-offer", "--version", "1"] + keys.key + offer + ["--timestamp", "-5"], "--timestamp takes"),
            (
                ["promotional-offer", "--version", "2"] + keys.key + offer + ["--nonce", "xyz"],
                "--nonce takes a UUID"
            ),
            (
                ["promotional-offer", "--version", "2", "--key-id", "K", "--key", keys.p8.path, "--bundle-id", "B"]
                    + offer, "--issuer-id, --key-id, --key and --bundle-id are required"
            ),
            (
                ["intro-offer-eligibility"] + keys.key + ["--product-id", "p", "--transaction-id", "1"],
                "needs --allow true|false"
            ),
            (
                ["intro-offer-eligibility"] + keys.key + [
                    "--product-id", "p", "--allow", "yes", "--transaction-id", "1",
                ],
                "--allow takes true or false"
            ),
            (
                ["intro-offer-eligibility"] + keys.key + ["--product-id", "p", "--allow", "true"],
                "needs --transaction-id"
            ),
            (
                ["advanced-commerce"] + keys.key + ["--product-id", "p"],
                "apple advanced-commerce takes no --product-id"
            ),
        ]
        for (words, message) in cases {
            let outcome = try CLIRunner.run(["apple"] + words)
            #expect(outcome.status == 64, "\(words)")
            #expect(outcome.stderr.contains(message), "\(words): \(outcome.stderr)")
            #expect(outcome.stdout.isEmpty)
        }
        // Version 1 signs no issuer, so needs none.
        let v1 = try CLIRunner.run(
            [
                "apple", "promotional-offer", "--version", "1", "--key-id", "K", "--key", keys.p8.path, "--bundle-id",
                "B",
            ]
                + offer)
        #expect(v1.status == 0, "\(v1.stderr)")
    }
}
