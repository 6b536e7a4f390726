import Foundation
import JWTVerifyTestSupport
import Testing

/// `jwtverify apple store CALL` through the built binary, against the strict App Store Server API
/// stand-in: its bearer tokens are the binary's own (`AppStoreServerAPIToken`), each call prints
/// one JSON object and exits with its status.
@Suite("jwtverify apple store against the stand-in")
struct CLIAppStoreServerTests {
    static func key(_ standIn: AppStoreServerStandIn, key: String = "registered") -> [String] {
        [
            "--issuer-id", AppStoreServerStandIn.issuerID, "--key-id", AppStoreServerStandIn.keyID, "--key",
            standIn.keyPath(key), "--bundle-id", AppStoreServerStandIn.bundleID, "--environment", "Sandbox",
            "--endpoint", standIn.baseURL,
        ]
    }

    /// Runs `jwtverify apple store call key… [--apple-root] arguments…`: its status and its one JSON object.
    static func store(
        _ call: String, _ standIn: AppStoreServerStandIn, _ arguments: [String], key: String = "registered",
        trusted: Bool = true
    ) throws -> (status: Int32, json: [String: Any], text: String) {
        let roots = trusted ? ["--apple-root", standIn.rootPath] : []
        let outcome = try CLIRunner.run(["apple", "store", call] + Self.key(standIn, key: key) + roots + arguments)
        let lines = outcome.stdoutText.split(separator: "\n")
        #expect(lines.count == 1, "\(call) printed \(lines.count) lines: \(outcome.stdoutText) \(outcome.stderr)")
        let json =
            (try? JSONSerialization.jsonObject(with: Data((lines.first.map(String.init) ?? "").utf8)) as? [String: Any])
            ?? [:]
        return (outcome.status, json, outcome.stdoutText + outcome.stderr)
    }

    static func claims(_ record: Any?) -> [String: Any] {
        ((record as? [String: Any])?["claims"] as? [String: Any]) ?? [:]
    }

    @Test("every call: 0 and verified records, with the binary's own bearer tokens accepted by the stand-in")
    func calls() throws {
        let standIn = try AppStoreServerStandIn()
        let info = try Self.store("transaction", standIn, ["--transaction-id", "2000000107"])
        #expect(info.status == 0, "\(info.text)")
        let record = try #require(info.json["transaction"] as? [String: Any])
        #expect(record["valid"] as? Bool == true && Self.claims(record)["transactionId"] as? String == "2000000107")
        let history = try Self.store("history", standIn, ["--transaction-id", "2000000100"])
        #expect(history.status == 0 && history.json["pages"] as? Int == 3, "\(history.text)")
        #expect((history.json["transactions"] as? [Any])?.count == 45)
        let statuses = try Self.store("statuses", standIn, ["--transaction-id", "2000000100", "--status", "2"])
        let last =
            ((statuses.json["groups"] as? [[String: Any]])?.first?["last_transactions"] as? [[String: Any]]) ?? []
        #expect(statuses.status == 0 && last.count == 1 && last.first?["status"] as? Int == 2, "\(statuses.text)")
        #expect(Self.claims(last.first?["renewal_info"])["autoRenewStatus"] as? Int == 0)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let notifications = try Self.store(
            "notification-history", standIn, ["--start-date", "\(now - 3_600_000)", "--end-date", "\(now)"])
        #expect(notifications.status == 0 && (notifications.json["notifications"] as? [Any])?.count == 25)
        let requested = try Self.store("test-notification", standIn, [])
        let token = try #require(requested.json["test_notification_token"] as? String)
        let status = try Self.store("test-notification", standIn, ["--test-token", token])
        #expect(
            status.status == 0 && Self.claims(status.json["notification"])["notificationType"] as? String == "TEST")
        let order = try Self.store("order", standIn, ["--order-id", "MQ12345678"])
        #expect(order.status == 0 && order.json["valid"] as? Bool == true)
        #expect((order.json["transactions"] as? [Any])?.count == 2)
        // One token per process, every one of them accepted.
        let stats = try standIn.stats()
        #expect(stats.refused == 0 && stats.tokens == 7)
    }

    @Test("Apple's error 1, a refused token 78, a tampered item 65 with its name, 429 69, Apple's root 65, usage 64")
    func failures() throws {
        let standIn = try AppStoreServerStandIn()
        let missing = try Self.store("transaction", standIn, ["--transaction-id", "1999999999"])
        #expect(missing.status == 1 && missing.json["error"] as? String == "transaction_id_not_found")
        #expect(missing.json["apple_error_code"] as? Int == 4_040_010 && missing.json["retryable"] as? Bool == false)
        let stranger = try Self.store("transaction", standIn, ["--transaction-id", "2000000101"], key: "stranger")
        #expect(stranger.status == 78 && stranger.json["error"] as? String == "unauthorized")
        let untrusted = try Self.store("transaction", standIn, ["--transaction-id", "2000000101"], trusted: false)
        #expect(untrusted.status == 65 && untrusted.json["error"] as? String == "untrusted_chain")
        try standIn.mode("tamper")
        let tampered = try Self.store("history", standIn, ["--transaction-id", "2000000100"])
        #expect(tampered.status == 65 && tampered.json["error"] as? String == "bad_signature")
        #expect(tampered.json["item"] as? String == "signedTransactions[3] of page 2")
        try standIn.mode("rate_limit")
        let limited = try Self.store("order", standIn, ["--order-id", "MQ12345678"])
        #expect(
            limited.status == 69 && limited.json["retry_after"] as? Int == 7
                && limited.json["retryable"] as? Bool == true)
        let noID = try CLIRunner.run(["apple", "store", "history"] + Self.key(standIn))
        #expect(noID.status == 64 && noID.stderr.contains("apple store history needs --transaction-id"))
        let unknown = try CLIRunner.run(["apple", "store", "refunds"] + Self.key(standIn))
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown apple store call \"refunds\""))
    }
}
