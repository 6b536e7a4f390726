import Foundation
import JWTVerifyTestSupport
import Testing

/// `jwtverify apple exchange|refresh|revoke|transfer` through the built binary, against the
/// strict stand-in for Apple's endpoints: each prints one JSON object and exits with its status.
@Suite("jwtverify apple against the stand-in")
struct CLIAppleTests {
    /// The client secret's header as base64url starts so: no output may carry it.
    static let secretPrefix = "eyJhbGciOiJFUzI1NiIs"

    static func credentials(
        _ standIn: AppleStandIn, key: String = "a", team: (team: String, keyID: String) = AppleStandIn.teamA
    ) -> [String] {
        [
            "--team-id", team.team, "--key-id", team.keyID, "--client-id", AppleStandIn.clientID, "--key",
            standIn.keyPath(key), "--endpoint", standIn.baseURL,
        ]
    }

    /// Runs `jwtverify apple subcommand credentials… arguments…`: its status, its one JSON object, what it wrote.
    static func apple(
        _ subcommand: String, _ standIn: AppleStandIn, _ arguments: [String], key: String = "a",
        team: (team: String, keyID: String) = AppleStandIn.teamA
    ) throws -> (status: Int32, json: [String: Any], text: String) {
        let outcome = try CLIRunner.run(["apple", subcommand] + credentials(standIn, key: key, team: team) + arguments)
        let lines = outcome.stdoutText.split(separator: "\n")
        #expect(lines.count == 1, "\(subcommand) printed \(lines.count) lines: \(outcome.stdoutText) \(outcome.stderr)")
        #expect(
            !outcome.stdoutText.contains(secretPrefix) && !outcome.stderr.contains(secretPrefix),
            "a client secret was printed")
        let json =
            (try? JSONSerialization.jsonObject(with: Data((lines.first.map(String.init) ?? "").utf8)) as? [String: Any])
            ?? [:]
        return (outcome.status, json, outcome.stdoutText + outcome.stderr)
    }

    @Test("exchange, refresh, revoke --confirm, refresh again: 0, 0, 0, then 1 with active false")
    func lifecycle() throws {
        let standIn = try AppleStandIn()
        let code = try standIn.authorize(subject: "001234.cli.0001", rawNonce: "raw-1")
        let exchanged = try Self.apple("exchange", standIn, ["--code", code, "--nonce", "raw-1"])
        #expect(exchanged.status == 0, "\(exchanged.text)")
        let identity = try #require(exchanged.json["identity"] as? [String: Any])
        #expect(
            identity["valid"] as? Bool == true && identity["sub"] as? String == "001234.cli.0001"
                && identity["claims_verified"] as? Bool == true)
        #expect(
            (identity["claims"] as? [String: Any])?["nonce"] as? String != nil
                && exchanged.json["expires_in"] as? Double == 3600)
        let refreshToken = try #require(exchanged.json["refresh_token"] as? String)
        let refreshed = try Self.apple("refresh", standIn, ["--refresh-token", refreshToken])
        #expect(refreshed.status == 0 && refreshed.json["active"] as? Bool == true)
        #expect((refreshed.json["identity"] as? [String: Any])?["sub"] as? String == "001234.cli.0001")
        let revoked = try Self.apple("revoke", standIn, ["--token", refreshToken, "--confirm"])
        #expect(
            revoked.status == 0 && revoked.json["revoked"] as? Bool == true
                && revoked.json["confirmed"] as? Bool == true, "\(revoked.text)")
        let after = try Self.apple("refresh", standIn, ["--refresh-token", refreshToken])
        #expect(
            after.status == 1 && after.json["active"] as? Bool == false
                && after.json["error"] as? String == "invalid_grant")
        #expect(after.json["retryable"] as? Bool == false && !after.text.contains(refreshToken))
        // An unknown token is revoked too, as far as Apple says; only a refresh check tells.
        #expect(try Self.apple("revoke", standIn, ["--token", "unknown", "--token-type", "access_token"]).status == 0)
        #expect(
            try CLIRunner.run(
                ["apple", "revoke"] + Self.credentials(standIn) + [
                    "--token", "t", "--token-type", "access_token", "--confirm",
                ]
            ).status == 64)
    }

    @Test(
        "revoke --confirm when Apple answers 200 but the token still works: 69, revoked true, confirmed false, revocation_unconfirmed"
    )
    func unconfirmedRevocation() throws {
        let standIn = try AppleStandIn()
        let code = try standIn.authorize(subject: "001234.cli.0002", rawNonce: "raw-2")
        let exchanged = try Self.apple("exchange", standIn, ["--code", code, "--nonce", "raw-2"])
        let refreshToken = try #require(exchanged.json["refresh_token"] as? String)
        try standIn.mode("revoke_ignored")
        let revoked = try Self.apple("revoke", standIn, ["--token", refreshToken, "--confirm"])
        #expect(revoked.status == 69, "\(revoked.text)")
        #expect(revoked.json["revoked"] as? Bool == true && revoked.json["confirmed"] as? Bool == false)
        #expect(
            revoked.json["error"] as? String == "revocation_unconfirmed"
                && revoked.json["kind"] as? String == "unavailable")
        #expect(
            revoked.json["retryable"] as? Bool == true && revoked.json["status"] == nil
                && !revoked.text.contains(refreshToken))
        #expect(revoked.json.count == 6, "\(revoked.json.keys.sorted())")
        // Without --confirm, Apple's 200 is all there is to say.
        let unchecked = try Self.apple("revoke", standIn, ["--token", refreshToken])
        #expect(
            unchecked.status == 0 && unchecked.json as NSDictionary == ["revoked": true] as NSDictionary,
            "\(unchecked.text)")
        // The token did keep working.
        #expect(try Self.apple("refresh", standIn, ["--refresh-token", refreshToken]).status == 0)
    }

    @Test(
        "each failure's exit status, error and retryable",
        arguments: [
            ("used", "invalid_grant", Int32(1), false), ("nonce", "nonce_mismatch", 65, false),
            ("bad_signature", "bad_signature", 65, false),
            ("other_audience", "audience_mismatch", 65, false), ("stranger", "invalid_client", 78, false),
            ("error500", "server_error", 69, true),
            ("unavailable503", "server_error", 69, true), ("hang", "timeout", 69, true),
            ("html", "response_invalid", 65, false),
            ("cut", "response_invalid", 65, false), ("huge", "response_too_large", 65, false),
            ("redirect", "unexpected_status", 65, false),
        ])
    func failures(_ scenario: String, _ error: String, _ status: Int32, _ retryable: Bool) throws {
        let standIn = try AppleStandIn()
        let code = try standIn.authorize(subject: "s", rawNonce: "raw")
        var nonce = "raw"
        var key = "a"
        switch scenario {
        case "used": _ = try Self.apple("exchange", standIn, ["--code", code, "--nonce", "raw"])
        case "nonce": nonce = "other"
        case "stranger": key = "stranger"
        default: try standIn.mode(scenario)
        }
        let timeout = scenario == "hang" ? "1" : "20"  // short only where no answer comes
        let outcome = try Self.apple(
            "exchange", standIn, ["--code", code, "--nonce", nonce, "--timeout", timeout], key: key)
        #expect(
            outcome.status == status && outcome.json["error"] as? String == error
                && outcome.json["retryable"] as? Bool == retryable, "\(outcome.text)")
        #expect(outcome.json["refresh_token"] == nil && outcome.json["access_token"] == nil)  // no tokens handed out
        #expect(!outcome.text.contains(code), "the code was printed")
        // "hang": only --timeout 1 gives `timeout`; the stand-in would close the connection after
        // 30 s without an answer (`connection_failed`).
        if scenario == "unavailable503" {
            #expect(outcome.json["retry_after"] as? Double == 120 && outcome.json["status"] as? Int == 503)
        }
    }

    @Test("transfer: the transferring team's transfer_sub, exchanged by the recipient team for its own sub")
    func transfer() throws {
        let standIn = try AppleStandIn()
        let forward = try Self.apple(
            "transfer", standIn, ["--user", "001234.cli.0001", "--target", AppleStandIn.teamB.team])
        let transferSub = try #require(forward.json["transfer_sub"] as? String, "\(forward.text)")
        #expect(forward.status == 0)
        let back = try Self.apple(
            "transfer", standIn, ["--transfer-sub", transferSub], key: "b", team: AppleStandIn.teamB)
        #expect(
            back.status == 0 && (back.json["sub"] as? String)?.hasPrefix("t") == true
                && back.json["is_private_email"] as? Bool == true)
        let unknown = try Self.apple(
            "transfer", standIn, ["--transfer-sub", "x-none"], key: "b", team: AppleStandIn.teamB)
        #expect(unknown.status == 78 && unknown.json["error"] as? String == "invalid_request")
    }

    @Test("--jwks FILE verifies the identity token with those keys; keys without Apple's refuse it")
    func keyFile() throws {
        let standIn = try AppleStandIn()
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent(
            "standin-keys-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: keys) }
        try Data(contentsOf: URL(string: standIn.keysURL)!).write(to: keys)
        let good = try Self.apple(
            "exchange", standIn,
            ["--code", try standIn.authorize(subject: "s", rawNonce: "r"), "--nonce", "r", "--jwks", keys.path])
        #expect(good.status == 0, "\(good.text)")
        let other = try Self.apple(
            "exchange", standIn,
            [
                "--code", try standIn.authorize(subject: "s", rawNonce: "r"), "--nonce", "r", "--jwks",
                "Vectors/jwks.json",
            ])
        #expect(other.status == 65 && other.json["error"] as? String == "unknown_kid")
    }

    @Test("usage: a subcommand lists the others; each needs its own options and refuses another's")
    func usage() throws {
        let standIn = try AppleStandIn()
        let unknown = try CLIRunner.run(["apple", "frob"])
        #expect(unknown.status == 64 && unknown.stderr.contains("client-secret, exchange, refresh, revoke, transfer"))
        let credentials = Self.credentials(standIn)
        for arguments in [
            ["exchange", "--code", "c"], ["exchange", "--code", "c", "--nonce", "n", "--skip-nonce"], ["refresh"],
            ["revoke"],
            ["transfer", "--user", "u"], ["transfer", "--transfer-sub", "x", "--user", "u", "--target", "T"],
            ["refresh", "--refresh-token", "r", "--code", "c"],
            ["exchange", "--code", "c", "--skip-nonce", "--endpoint", "http://appleid.apple.com"],
        ] {
            let outcome = try CLIRunner.run(["apple", arguments[0]] + credentials + arguments.dropFirst())
            #expect(outcome.status == 64, "\(arguments): \(outcome.stderr)")
        }
        #expect(
            try CLIRunner.run([
                "apple", "refresh", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key", "/nonexistent.p8",
                "--refresh-token", "r",
            ]).status == 66)
    }
}
