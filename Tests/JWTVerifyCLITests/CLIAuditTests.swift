import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `jwtverify audit` and `inspect` on fixtures the test builds: a log file, a HAR file and a JSON
/// export with tokens embedded every way the issue lists.
@Suite("jwtverify audit and inspect")
struct CLIAuditTests {
    static func claims(iat: Int, exp: Int, nonce: String, sub: String = "001.user.1", extra: String = "") -> String {
        #"{"iss":"https://appleid.apple.com","aud":"com.example.app","iat":\#(iat),"exp":\#(exp),"sub":"\#(sub)","nonce":"\#(nonce)"\#(extra)}"#
    }

    // A: valid; B: expired at --now but valid at its iat; C: unknown kid; D: another token with A's
    // nonce (replay); E: alg none; F: valid, email_verified "false".
    static let tA = TokenFactory.token(
        payload: claims(iat: 1_700_000_000, exp: 1_700_003_600, nonce: "n-A", extra: #","email_verified":true"#))
    static let tB = TokenFactory.token(payload: claims(iat: 1_690_000_000, exp: 1_690_000_600, nonce: "n-B"))
    static let tC = TokenFactory.token(
        header: #"{"kid":"zzz","alg":"RS256"}"#, payload: claims(iat: 1_700_000_000, exp: 1_700_003_600, nonce: "n-C"),
        signer: TokenFactory.rsaB)
    static let tD = TokenFactory.token(
        payload: claims(iat: 1_700_000_100, exp: 1_700_003_600, nonce: "n-A", sub: "001.user.2"))
    static let tE =
        Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "."
        + Base64URL.encode(Array(claims(iat: 1_700_000_000, exp: 1_700_003_600, nonce: "n-E").utf8)) + "."
    static let tF = TokenFactory.token(
        payload: claims(iat: 1_700_000_000, exp: 1_700_086_401, nonce: "n-F", extra: #","email_verified":"false""#))

    static let logPrefix = "2023-11-14T22:00:00Z INFO login Authorization: Bearer "
    static var log: String {
        [
            logPrefix + tA,
            "2023-11-14T22:00:01Z INFO callback GET /cb?code=x&id_token=\(tB)&state=y",
            "2023-11-14T22:00:02Z WARN set-cookie session=\(tA); Path=/; HttpOnly",
            "2023-11-14T22:00:03Z INFO form id_token=" + tC.replacingOccurrences(".", "%2E"),
            "2023-11-14T22:00:04Z ERROR partial " + tA.prefix(60),
            "no tokens here: eyes, they, keys",
        ].joined(separator: "\n") + "\n"
    }

    static var har: String {
        let escapedF = "\\u0065" + tF.dropFirst()
        return """
            {"log": {"entries": [
              {"request": {"headers": [{"name": "Authorization", "value": "Bearer \(tD)"}],
                           "postData": {"text": "id_token=\(tE)&x=1"}}},
              {"response": {"content": {"text": "{\\"id_token\\":\\"\(escapedF)\\"}"}}}
            ]}}

            """
    }

    static var export: String { #"[{"id_token":"\#(tF)"},{"token":"\#(tA)"}]"# + "\n" }

    static func fixtures() throws -> (directory: URL, jwks: String, files: [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let jwks = directory.appendingPathComponent("keys.json")
        try Data(TokenFactory.jwksJSON.utf8).write(to: jwks)
        var files: [String] = []
        for (name, text) in [("app.log", log), ("session.har", har), ("export.json", export)] {
            let file = directory.appendingPathComponent(name)
            var data = Data(text.utf8)
            if name == "app.log" { data.append(contentsOf: [0x00, 0xFF, 0xFE, 0x65, 0x79, 0x00, 0x0A]) }  // binary junk
            try data.write(to: file)
            files.append(file.path)
        }
        return (directory, jwks.path, files)
    }

    @Test("jsonl: every occurrence in input order with file, line and column; verdicts at a fixed --now")
    func occurrences() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try CLIRunner.run(["audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl"] + files)
        #expect(outcome.status == 1)
        let records = outcome.records
        #expect(records.count == 9)
        let verdicts = records.map { ($0["valid"] as? Bool == true) ? "valid" : ($0["reason"] as? String ?? "?") }
        #expect(
            verdicts == ["valid", "expired", "valid", "unknown_kid", "valid", "alg_none", "valid", "valid", "valid"])
        #expect(records[0]["line"] as? Int == 1)
        #expect(records[0]["column"] as? Int == Self.logPrefix.utf8.count + 1)
        #expect(records[0]["key_source"] as? String == jwks)
        #expect(records[3]["line"] as? Int == 4)  // URL-encoded
        #expect(records[4]["file"] as? String == files[1])
        #expect(records[6]["file"] as? String == files[1])  // JSON-escaped in the HAR
        #expect(records[7]["column"] as? Int == 15)  // first token of the export line
        #expect(records[0]["fingerprint"] as? String == records[2]["fingerprint"] as? String)
        #expect(records[0]["lifetime"] as? Int == 3600)
        #expect(records.allSatisfy { $0["token"] == nil })
        #expect(outcome.stderr.contains("9 tokens found, 6 valid, 3 rejected"))
        let shown = try CLIRunner.run([
            "audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl", "--show-tokens", files[2],
        ])
        #expect(shown.records.first?["token"] as? String == Self.tF)
    }

    @Test("jsonl records carry the nonce's fingerprint and the token's anomalies; --discards adds the fragments")
    func fingerprintsAndDiscards() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try CLIRunner.run(
            ["audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl", "--discards"] + files)
        let discards = outcome.records.filter { $0["discarded"] != nil }
        #expect(discards.count == 1)
        #expect(discards.first?["discarded"] as? String == "truncated")
        #expect(discards.first?["file"] as? String == files[0])
        #expect(discards.first?["line"] as? Int == 5)
        let records = outcome.records.filter { $0["discarded"] == nil }
        #expect(records.count == 9)
        let nonceA = MessageDigest.sha256.hash(Array("n-A".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(records[0]["nonce_fingerprint"] as? String == nonceA)
        #expect(records[4]["nonce_fingerprint"] as? String == nonceA)  // D replays A's nonce
        #expect(records[1]["nonce_fingerprint"] as? String != nonceA)
        #expect(records[0]["anomalies"] as? [String] == [])
        #expect(records[3]["anomalies"] as? [String] == ["unknown kid"])
        #expect(records[5]["anomalies"] as? [String] == ["alg none"])
        #expect(records[6]["anomalies"] as? [String] == ["lifetime over 24 h", "email_verified false"])
        let plain = try CLIRunner.run(["audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl"] + files)
        #expect(plain.records.count == 9)  // no discard records without the flag
    }

    @Test(
        "--tagged-input: each line's tag replaces file and line; columns count from the text, also in a long line's later pieces"
    )
    func taggedInput() throws {
        let (directory, jwks, _) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        var input = Data()
        for (number, line) in Self.log.split(separator: "\n").enumerated() {
            input.append(Data("f#\(number + 1)\t\(line)\n".utf8))
        }
        input.append(Data("untagged \(Self.tD)\n".utf8))
        // 9 MiB with no separator: cut twice inside the run; then a token after it, in the last piece.
        let run = 9 << 20
        input.append(
            Data("big\t".utf8) + Data(repeating: UInt8(ascii: "x"), count: run) + Data((" " + Self.tB + "\n").utf8))
        input.append(
            Data(
                ("fits\t" + String(repeating: "y", count: (4 << 20) - Self.tA.utf8.count - 1) + " " + Self.tA + "\n")
                    .utf8))
        let outcome = try CLIRunner.run(
            [
                "audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl", "--discards", "--tagged-input",
                "-q",
            ], input: input)
        // -q: no summary line; the cuts inside the run are named all the same, and fail the run.
        #expect(
            outcome.stderr
                == "jwtverify: 2 cuts inside runs of 4 MiB without a separator (unbroken_run): a token across a cut was not read\n"
        )
        #expect(outcome.status == 1)
        let records = outcome.records.filter { $0["discarded"] == nil }
        #expect(
            records.map { $0["tag"] as? String ?? "(null)" } == ["f#1", "f#2", "f#3", "f#4", "(null)", "big", "fits"])
        #expect(records.allSatisfy { $0["file"] == nil && $0["line"] == nil })
        #expect(records[0]["column"] as? Int == Self.logPrefix.utf8.count + 1)
        #expect(records[4]["column"] as? Int == 10)
        #expect(records[5]["column"] as? Int == run + 2)
        #expect(records[5]["reason"] as? String == "expired")
        #expect(records[6]["column"] as? Int == (4 << 20) - Self.tA.utf8.count + 1)
        let discards = outcome.records.filter { $0["discarded"] != nil }
        #expect(discards.map { $0["discarded"] as? String ?? "?" } == ["truncated", "unbroken_run", "unbroken_run"])
        #expect(discards.map { $0["tag"] as? String ?? "?" } == ["f#5", "big", "big"])
    }

    @Test(
        "--files-from: the listed files after the operands, in order, as if given as operands; an empty list reads nothing"
    )
    func filesFrom() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let common = ["audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl", "--discards", "-q"]
        let expected = try CLIRunner.run(common + files)
        let fromStdin = try CLIRunner.run(
            common + ["--files-from", "-", files[0]], input: Data((files[1...].joined(separator: "\n") + "\n").utf8))
        #expect(fromStdin.status == expected.status)
        #expect(fromStdin.stdout == expected.stdout)
        let list = directory.appendingPathComponent("list.txt")
        try Data(files.joined(separator: "\n").utf8).write(to: list)  // no final line break: still three paths
        let fromFile = try CLIRunner.run(common + ["--files-from", list.path])
        #expect(fromFile.stdout == expected.stdout)
        let empty = try CLIRunner.run(common + ["--files-from", "-"], input: Data("\n".utf8))
        #expect(empty.status == 0)
        #expect(empty.records.isEmpty)
        let missing = try CLIRunner.run(
            common + ["--files-from", "-"], input: Data((files[0] + "\n" + files[0] + ".absent\n").utf8))
        #expect(missing.status == 66)
        #expect(missing.records.isEmpty)  // every input is opened before any is read
        let conflict = try CLIRunner.run(common + ["--files-from", "-", "--tagged-input"])
        #expect(conflict.status == 64)
    }

    @Test("--at iat evaluates each token at its own issue time")
    func atIssueTime() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try CLIRunner.run(["audit", "--jwks", jwks, "--at", "iat", "--format", "jsonl"] + files)
        let verdicts = outcome.records.map {
            ($0["valid"] as? Bool == true) ? "valid" : ($0["reason"] as? String ?? "?")
        }
        #expect(verdicts == ["valid", "valid", "valid", "unknown_kid", "valid", "alg_none", "valid", "valid", "valid"])
        #expect(outcome.records[1]["evaluated_at"] as? Int == 1_690_000_000)
    }

    @Test("the json report: totals, reasons, repeats, a replayed nonce, anomalies and discarded fragments")
    func report() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outcome = try CLIRunner.run(
            [
                "audit", "--jwks", jwks, "--now", "1700001000", "--issuer", "https://appleid.apple.com", "--format",
                "json",
            ] + files)
        let report = try #require(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any])
        #expect(report["tokens"] as? Int == 9)
        #expect(report["valid"] as? Int == 6)
        #expect(report["by_reason"] as? [String: Int] == ["expired": 1, "unknown_kid": 1, "alg_none": 1])
        #expect(report["by_kid"] as? [String: Int] == ["rsa-a": 7, "zzz": 1, "(none)": 1])
        #expect(report["by_issuer"] as? [String: Int] == ["https://appleid.apple.com": 9])
        #expect(report["repeated_tokens"] as? Int == 2)
        #expect(report["repeated_occurrences"] as? Int == 3)
        #expect(report["shared_nonces"] as? Int == 1)
        #expect(report["tokens_sharing_nonces"] as? Int == 2)
        #expect(report["lifetimes"] as? [String: Int] == ["<= 10 min": 1, "<= 1 h": 6, "> 24 h": 2])
        let anomalies = try #require(report["anomalies"] as? [String: Int])
        #expect(anomalies["alg none"] == 1)
        #expect(anomalies["unknown kid"] == 1)
        #expect(anomalies["email_verified false"] == 2)
        #expect(anomalies["lifetime over 24 h"] == 2)
        #expect(anomalies["no nonce claim"] == nil)
        #expect(report["discarded"] as? [String: Int] == ["truncated": 1])
        // The lists behind those counts: each repeated token and the shared nonce, with the first
        // and the last occurrence, most frequent first.
        let repeats = try #require(report["repeats"] as? [[String: Any]])
        #expect(repeats.map { $0["occurrences"] as? Int } == [3, 2])
        for entry in repeats {
            let first = try #require(entry["first"] as? [String: Any])
            let last = try #require(entry["last"] as? [String: Any])
            #expect(
                (first["file"] as? String, first["line"] as? Int) != (last["file"] as? String, last["line"] as? Int))
            #expect((entry["fingerprint"] as? String)?.count == 64)
        }
        let shared = try #require(report["shared_nonce_list"] as? [[String: Any]])
        #expect(shared.count == 1)
        #expect(shared.first?["tokens"] as? Int == 2)
        let tokensTable = try #require(report["tokens_table"] as? [String: Any])
        #expect((tokensTable["rows"] as? [[String: Any]])?.count == 9)
        #expect(tokensTable["omitted"] as? Int == 0)
        let table = try CLIRunner.run(["audit", "--jwks", jwks, "--now", "1700001000", "--format", "table"] + files)
        let distinct = 9 - (report["repeated_occurrences"] as? Int ?? -1)
        #expect(
            table.stdoutText.contains("9 occurrences of \(distinct) distinct tokens: 6 valid, 3 rejected"),
            "\(table.stdoutText)")
        // Each rejected occurrence with where it is and what held it.
        #expect(
            table.stdoutText.contains("Rejected occurrences (the first 3 of 3, in input order)\n  " + files[0] + ":2:"),
            "\(table.stdoutText)")
        #expect(table.stdoutText.contains("query:id_token  expired"), "\(table.stdoutText)")
        let markdown = try CLIRunner.run(
            ["audit", "--jwks", jwks, "--now", "1700001000", "--format", "markdown"] + files)
        #expect(markdown.stdoutText.contains("| expired | 1 |"))
    }

    @Test("audit render: a saved json report renders exactly as audit prints each format; anything else is refused")
    func render() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let flags = ["--jwks", jwks, "--now", "1700001000", "--issuer", "https://appleid.apple.com"]
        let saved = directory.appendingPathComponent("report.json")
        let json = try CLIRunner.run(["audit", "--format", "json"] + flags + files)
        try json.stdout.write(to: saved)
        for format in ["json", "table", "markdown"] {
            let direct = try CLIRunner.run(["audit", "--format", format] + flags + files)
            let rendered = try CLIRunner.run(["audit", "render", "--format", format, saved.path])
            #expect(rendered.status == 0, "\(rendered.stderr)")
            #expect(rendered.stdout == direct.stdout, "\(format)")
            #expect(!rendered.stdout.isEmpty)
        }
        #expect(
            try CLIRunner.run(["audit", "render", "-"], input: json.stdout).stdout
                == (try CLIRunner.run(["audit", "--format", "table"] + flags + files)).stdout)
        let notReport = try CLIRunner.run(["audit", "render", "-"], input: Data(#"{"tokens":1}"#.utf8))
        #expect(notReport.status == 65)
        #expect(notReport.stderr.contains("not an audit report"))
        #expect(try CLIRunner.run(["audit", "render", "-"], input: Data("nope".utf8)).status == 65)
        #expect(try CLIRunner.run(["audit", "render"]).status == 64)
        #expect(try CLIRunner.run(["audit", "render", "--format", "jsonl", saved.path]).status == 64)
        #expect(
            try CLIRunner.run(["audit", "render", directory.appendingPathComponent("missing.json").path]).status == 66)
    }

    @Test("file: URIs (as a Spark job or a Hadoop listing names files) are read, and records keep the name as given")
    func fileURIs() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try CLIRunner.run(["audit", "--format", "jsonl", "--jwks", jwks, "--now", "1700001000", files[0]])
        for uri in ["file:" + files[0], "file://" + files[0]] {
            let named = try CLIRunner.run(["audit", "--format", "jsonl", "--jwks", jwks, "--now", "1700001000", uri])
            #expect(named.status == plain.status)
            #expect(named.records.count == plain.records.count && !plain.records.isEmpty)
            #expect(named.records.allSatisfy { $0["file"] as? String == uri })
            #expect(
                named.records.map { $0["fingerprint"] as? String } == plain.records.map { $0["fingerprint"] as? String }
            )
        }
        #expect(try CLIRunner.run(["audit", "--jwks", jwks, "file:" + files[0] + ".absent"]).status == 66)
    }

    @Test("audit reads stdin, reads gigantic lines, counts a cut inside an unbroken run, and rejects bad flags")
    func streamsAndUsage() throws {
        let (directory, jwks, _) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        var input = Data((Self.logPrefix + Self.tA + "\n").utf8)
        input.append(Data(String(repeating: "x", count: 5 << 20).utf8))
        input.append(Data(("\n" + Self.tD + "\n").utf8))
        let outcome = try CLIRunner.run(
            ["audit", "--jwks", jwks, "--now", "1700001000", "--format", "json"], input: input)
        let report = try #require(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any])
        #expect(report["tokens"] as? Int == 2)
        #expect(report["discarded"] as? [String: Int] == ["unbroken_run": 1])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("(unbroken_run)"))
        #expect(try CLIRunner.run(["audit"]).status == 64)
        #expect(try CLIRunner.run(["audit", "--jwks", jwks, "--at", "exp"]).status == 64)
        #expect(try CLIRunner.run(["audit", "--jwks", jwks, "--now", "1", "--at", "iat"]).status == 64)
        #expect(try CLIRunner.run(["audit", "--help"]).status == 0)
    }

    @Test("inspect says UNVERIFIED without keys; with keys it verifies or names the failing check")
    func inspect() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try CLIRunner.run(["inspect", Self.tB, "--now", "1700001000"])
        #expect(plain.status == 0)
        #expect(plain.stdoutText.hasPrefix("UNVERIFIED"))
        #expect(plain.stdoutText.contains("\"nonce\": \"n-B\""))
        #expect(plain.stdoutText.contains("expires    2023-07-22T04:36:40Z (115 d ago)"))
        #expect(plain.stdoutText.contains("lifetime   10 min"))
        let verified = try CLIRunner.run(
            ["inspect", "-", "--jwks", jwks, "--now", "1700001000"], input: Data(Self.tA.utf8))
        #expect(verified.status == 0)
        #expect(verified.stdoutText.hasPrefix("VERIFIED: signature by kid rsa-a (RS256)"))
        let rejected = try CLIRunner.run(["inspect", files[0], "--jwks", jwks, "--now", "1800000000"])
        #expect(rejected.status == 1)
        #expect(rejected.stdoutText.hasPrefix("REJECTED: expired"))
        #expect(try CLIRunner.run(["inspect", "not a token"]).status == 65)
        #expect(try CLIRunner.run(["inspect", "missing.txt"]).status == 66)
        #expect(try CLIRunner.run(["inspect"]).status == 64)
    }

    @Test(
        "every format leads with the findings and their evidence: 31 distinct tokens replaying one nonce, a token seen twice"
    )
    func findingsLead() throws {
        let workspace = try TestWorkspace("audit-findings")
        let directory = workspace.directory
        let jwks = workspace.jwks
        let replayed = (0..<31).map {
            TokenFactory.token(
                payload: Self.claims(iat: 1_700_000_000 + $0, exp: 1_700_003_600, nonce: "one-nonce", sub: "u\($0)"))
        }
        let log = directory.appendingPathComponent("gateway.log")
        try ((replayed + [replayed[0]]).map { "GET /api Authorization: Bearer \($0)" }.joined(separator: "\n") + "\n")
            .write(to: log, atomically: true, encoding: .utf8)
        func run(_ format: String) throws -> String {
            let outcome = try CLIRunner.run([
                "audit", "--format", format, "--jwks", jwks.path, "--now", "1700001000", log.path,
            ])
            #expect(outcome.status == 0, "\(format): \(outcome.stderr)")
            return outcome.stdoutText
        }
        // The report names a nonce by the SHA-256 of the claim (here the claim is "one-nonce" itself).
        let nonceHash = Nonce.expectedClaim(forRawNonce: "one-nonce")
        let title = "Nonces shared by distinct tokens (possible replay): 1 nonce, 31 tokens"
        let table = try run("table")
        let findings = try #require(table.range(of: "FINDINGS\n  1. \(title)\n"), "\(table.prefix(600))")
        #expect(findings.lowerBound < table.range(of: "STATISTICS")!.lowerBound)
        // Last seen where the repeated token carried it again, on line 32.
        #expect(
            table.contains("nonce sha256 \(nonceHash)  31  first \(log.path):1:")
                && table.contains("last \(log.path):32:"))
        #expect(table.contains("  2. Tokens seen more than once: 1 token, 1 extra occurrence"))
        #expect(table.contains("Evaluated at 2023-11-14T22:30:00Z."))
        let markdown = try run("markdown")
        #expect(
            markdown.contains("## Findings\n\n1. **\(title)**\n")
                && markdown.range(of: "## Findings")!.lowerBound < markdown.range(of: "## Statistics")!.lowerBound)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try run("json").utf8)) as? [String: Any])
        let first = try #require((json["findings"] as? [[String: Any]])?.first)
        #expect(
            first["kind"] as? String == "shared_nonce" && first["count"] as? Int == 1
                && first["title"] as? String == title)
        let evidence = try #require((first["evidence"] as? [[String: Any]])?.first)
        #expect(
            evidence["count"] as? Int == 31 && (evidence["first"] as? [String: Any])?["line"] as? Int == 1
                && (evidence["last"] as? [String: Any])?["line"] as? Int == 32)
        #expect(evidence["value"] as? String == "nonce sha256 \(nonceHash)")
        let html = try run("html")
        let card = try #require(html.range(of: "<h2 id=\"findings\">Findings</h2>"))
        #expect(card.lowerBound < html.range(of: "id=\"verdicts\"")!.lowerBound)
        #expect(html.contains("<strong>\(title)</strong>"))
        // The anomalies panel can never say "none" while something calls for action.
        let anomalies = try #require(html.range(of: "<h2 id=\"anomalies\">"))
        #expect(!html[anomalies.upperBound...].prefix(200).contains("<p class=\"empty\">none</p>"))
        #expect(
            html[anomalies.upperBound...].prefix(4000).contains("nonces shared by distinct tokens (possible replay)"))
        // Nothing to act on: every format says so.
        let clean = directory.appendingPathComponent("clean.log")
        try (replayed[0] + "\n").write(to: clean, atomically: true, encoding: .utf8)
        let quiet = try CLIRunner.run([
            "audit", "--format", "table", "--jwks", jwks.path, "--now", "1700001000", clean.path,
        ])
        #expect(quiet.stdoutText.contains("FINDINGS\n  none: nothing calls for action\n"))
        let quietHTML = try CLIRunner.run([
            "audit", "--format", "html", "--jwks", jwks.path, "--now", "1700001000", clean.path,
        ])
        #expect(
            quietHTML.stdoutText.contains(
                "<h2 id=\"findings\">Findings</h2>\n<p class=\"empty\">none: nothing calls for action</p>"))
    }

    @Test("the printed report on the bundled samples (Vectors/README.md) is what its command prints")
    func readmeReport() throws {
        let readme = try String(
            contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("Vectors/README.md"), encoding: .utf8)
        let command = try #require(readme.range(of: "(`jwtverify audit --format table "))
        let commandEnd = try #require(readme.range(of: "`", range: command.upperBound..<readme.endIndex))
        let words = readme[readme.index(command.lowerBound, offsetBy: 2)..<commandEnd.lowerBound].split(separator: " ")
            .map(String.init)
        let block = try #require(readme.range(of: "```\n", range: commandEnd.upperBound..<readme.endIndex))
        let blockEnd = try #require(readme.range(of: "```\n", range: block.upperBound..<readme.endIndex))
        let printed = try CLIRunner.run(Array(words.dropFirst()))
        #expect(printed.stdoutText == String(readme[block.upperBound..<blockEnd.lowerBound]))
    }

    /// The fixtures and one more file, so that repeats and shared nonces cross files (A, D with
    /// A's nonce, and F appear in several); with the options every part is evaluated under.
    static func crossingInputs() throws -> (
        directory: URL, jwks: String, files: [String], inputs: [String], common: [String]
    ) {
        let (directory, jwks, files) = try Self.fixtures()
        let extra = directory.appendingPathComponent("more.log")
        try Data([Self.tD, Self.tA, Self.tF, Self.tB].joined(separator: "\n").utf8).write(to: extra)
        return (directory, jwks, files, files + [extra.path], ["--jwks", jwks, "--now", "1700001000"])
    }

    @Test(
        "audit merge of per-file partials equals one audit over the same files in the same order, byte for byte, in every format"
    )
    func mergeEqualsOneRun() throws {
        let (directory, jwks, files, inputs, common) = try Self.crossingInputs()
        defer { try? FileManager.default.removeItem(at: directory) }
        var partials: [String] = []
        for (index, input) in inputs.enumerated() {
            let partial = try CLIRunner.run(["audit"] + common + ["--format", "partial", input])
            #expect(partial.status <= 1, "\(partial.stderr)")
            let path = directory.appendingPathComponent("part-\(index).json").path
            try partial.stdout.write(to: URL(fileURLWithPath: path))
            partials.append(path)
        }
        for format in ["json", "table", "markdown", "html"] {
            let single = try CLIRunner.run(["audit"] + common + ["--format", format] + inputs)
            let merged = try CLIRunner.run(["audit", "merge", "--format", format] + partials)
            #expect(merged.status == single.status, "\(format): \(merged.stderr)")
            #expect(merged.stdout == single.stdout, "\(format) differs")
        }
        let report = try #require(
            try JSONSerialization.jsonObject(
                with: try CLIRunner.run(["audit", "merge", "--format", "json"] + partials).stdout) as? [String: Any])
        #expect((report["repeated_tokens"] as? Int ?? 0) >= 3)
        #expect((report["shared_nonces"] as? Int ?? 0) >= 1)
        // Another order is another input: the merge follows the order given.
        let reversed = try CLIRunner.run(["audit", "merge", "--format", "json"] + partials.reversed())
        let reversedSingle = try CLIRunner.run(["audit"] + common + ["--format", "json"] + inputs.reversed())
        #expect(reversed.stdout == reversedSingle.stdout)
        // Parts evaluated at different times are refused.
        let other = directory.appendingPathComponent("other.json").path
        try (try CLIRunner.run(["audit", "--jwks", jwks, "--now", "1700009999", "--format", "partial", files[0]]))
            .stdout.write(to: URL(fileURLWithPath: other))
        let refused = try CLIRunner.run(["audit", "merge", partials[0], other])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("evaluated otherwise"))
        #expect(try CLIRunner.run(["audit", "merge"]).status == 64)
        #expect(try CLIRunner.run(["audit", "merge", "--format", "tsv", partials[0]]).status == 64)
    }

    @Test(
        "audit --partials: the records unchanged, a partial per file or per run of consecutive tagged places, and their merge in input order is one audit"
    )
    func partialsBesideRecords() throws {
        let (directory, _, files, inputs, common) = try Self.crossingInputs()
        defer { try? FileManager.default.removeItem(at: directory) }
        let single = try CLIRunner.run(["audit"] + common + ["--format", "json"] + inputs)
        for format in ["tsv", "jsonl"] {
            let plain = try CLIRunner.run(["audit"] + common + ["--format", format, "--discards"] + inputs)
            let both = try CLIRunner.run(
                ["audit"] + common + ["--format", format, "--discards", "--partials"] + inputs)
            #expect(both.status == plain.status)
            let lines = both.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
            let partialLines = lines.filter { $0.hasPrefix("#partial\t") }
            #expect(
                lines.filter { !$0.hasPrefix("#partial\t") }.joined(separator: "\n") == plain.stdoutText,
                "\(format): records changed")
            // One per file that holds anything, named by the file, in input order.
            #expect(partialLines.map { String($0.split(separator: "\t")[1]) } == inputs.map { "\"\($0)\"" })
            let merged = try CLIRunner.run(
                ["audit", "merge", "--format", "json", "-"],
                input: Data(partialLines.map { $0.split(separator: "\t", maxSplits: 2)[2] + "\n" }.joined().utf8))
            #expect(merged.stdout == single.stdout, "\(format): the merge differs from one run")
        }
        // Tagged lines handed over out of order: a partial per run of consecutive FILE:LINE tags,
        // each starting where its run starts; sorted by that start, their merge is one run over the
        // lines in tag order (the report then names tags, as --tagged-input records do).
        let texts = try inputs.map {
            try Data(contentsOf: URL(fileURLWithPath: $0)).split(
                separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        }
        var tagged: [(file: Int, line: Int, text: Data)] = []
        for (file, lines) in texts.enumerated() {
            for (number, text) in lines.enumerated() { tagged.append((file, number + 1, Data(text))) }
        }
        func joined(_ lines: some Sequence<(file: Int, line: Int, text: Data)>) -> Data {
            Data(lines.map { Data("\($0.file):\($0.line)\t".utf8) + $0.text }.joined(separator: Data([0x0A])))
        }
        let inOrder = joined(tagged)
        let handed = joined(Array(tagged[3...]) + Array(tagged[..<3]))
        let run = try CLIRunner.run(
            ["audit"] + common + ["--tagged-input", "--format", "tsv", "--partials"], input: handed)
        let runs = run.stdoutText.split(separator: "\n").filter { $0.hasPrefix("#partial\t") }.map {
            $0.split(separator: "\t", maxSplits: 2)
        }
        let starts = runs.map { String($0[1]) }
        #expect(starts.count >= 2 && starts.last == "[0,1]")
        let ordered = runs.sorted { a, b in
            let x = a[1].dropFirst().dropLast().split(separator: ",").compactMap { Int($0) }
            let y = b[1].dropFirst().dropLast().split(separator: ",").compactMap { Int($0) }
            return x.lexicographicallyPrecedes(y)
        }
        let mergedTagged = try CLIRunner.run(
            ["audit", "merge", "--format", "json", "-"], input: Data(ordered.map { $0[2] + "\n" }.joined().utf8))
        let oneTagged = try CLIRunner.run(["audit"] + common + ["--tagged-input", "--format", "json"], input: inOrder)
        #expect(mergedTagged.stdout == oneTagged.stdout)
        #expect(try CLIRunner.run(["audit"] + common + ["--format", "json", "--partials", files[0]]).status == 64)
    }

    @Test("a report says when issuers or audiences were not checked, and counts them")
    func uncheckedIssuerAndAudience() throws {
        let (directory, jwks, files) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let unchecked = try CLIRunner.run([
            "audit", "--jwks", jwks, "--now", "1700001000", "--format", "json", files[0],
        ])
        let report = try #require(try JSONSerialization.jsonObject(with: unchecked.stdout) as? [String: Any])
        #expect(report["issuer_checked"] as? Bool == false && report["audience_checked"] as? Bool == false)
        let table = try CLIRunner.run(["audit", "--jwks", jwks, "--now", "1700001000", "--format", "table", files[0]])
        #expect(
            table.stdoutText.contains(
                "Issuers and Audiences were not checked (no --issuer or --audience): they are counted below."))
        let checked = try CLIRunner.run(
            [
                "audit", "--jwks", jwks, "--now", "1700001000", "--issuer", TokenFactory.issuer, "--audience",
                TokenFactory.audience, "--format", "json", files[0],
            ])
        let checkedReport = try #require(try JSONSerialization.jsonObject(with: checked.stdout) as? [String: Any])
        #expect(checkedReport["issuer_checked"] as? Bool == true && checkedReport["audience_checked"] as? Bool == true)
        let profile = try CLIRunner.run([
            "audit", "--jwks", jwks, "--now", "1700001000", "--profile", "apple", "--format", "json", files[0],
        ])
        let profileReport = try #require(try JSONSerialization.jsonObject(with: profile.stdout) as? [String: Any])
        #expect(profileReport["issuer_checked"] as? Bool == true && profileReport["audience_checked"] as? Bool == false)
    }

    /// A HAR file as browsers save it: one line, `count` requests each with a bearer token and
    /// a large response body, about `bytes` in all.
    static func minifiedHAR(token: String, count: Int, bytes: Int) -> Data {
        let body = String(repeating: "a", count: bytes / count - 400 - token.utf8.count)
        let entries = (0..<count).map { index in
            #"{"request":{"method":"GET","url":"https://api.example.com/items/\#(index)","headers":[{"name":"Authorization","value":"Bearer \#(token)"}]},"response":{"status":200,"content":{"mimeType":"text/plain","text":"\#(body) \#(index)"}}}"#
        }
        return Data(
            (#"{"log":{"version":"1.2","creator":{"name":"test"},"entries":["# + entries.joined(separator: ",") + "]}}")
                .utf8)
    }

    @Test("a 6 MB one-line HAR gives all 20 of its tokens, as its pretty-printed copy does, and exits 0")
    func oneLineHAR() throws {
        let (directory, jwks, _) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let har = Self.minifiedHAR(token: Self.tA, count: 20, bytes: 6_000_000)
        #expect(har.count > 5_900_000 && !har.contains(UInt8(ascii: "\n")))
        let pretty = try JSONSerialization.data(
            withJSONObject: try JSONSerialization.jsonObject(with: har), options: [.prettyPrinted])
        for (name, input) in [("one line", har), ("pretty", pretty)] {
            let outcome = try CLIRunner.run(
                ["audit", "--jwks", jwks, "--now", "1700001000", "--format", "json"], input: input)
            let report = try #require(
                try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any], "\(name)")
            #expect(report["tokens"] as? Int == 20, "\(name)")
            #expect(report["valid"] as? Int == 20, "\(name)")
            #expect(report["discarded"] as? [String: Int] == [:], "\(name)")
            #expect(outcome.status == 0, "\(name): \(outcome.stderr)")
        }
        let records = try CLIRunner.run(
            ["audit", "--jwks", jwks, "--now", "1700001000", "--format", "jsonl", "-q"], input: har
        ).records
        #expect(records.count == 20)
        // Every record on line 1, at the column where its token starts in the line.
        let starts = har.ranges(of: Data(Self.tA.utf8)).map {
            har.distance(from: har.startIndex, to: $0.lowerBound) + 1
        }
        #expect(records.map { $0["line"] as? Int } == Array(repeating: 1, count: 20))
        #expect(records.map { $0["column"] as? Int ?? 0 } == starts)
    }

    @Test("a 200 MB single line: 20 of 20 tokens, in bounded memory (peak RSS of the audit, read by its parent)")
    func hugeSingleLine() throws {
        let (directory, jwks, _) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("huge.log")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        // JSON-ish records with separators every 64 bytes of padding, 10 MB between tokens.
        let padding = Data(String(repeating: String(repeating: "p", count: 63) + ",", count: (10_000_000 / 64)).utf8)
        for index in 0..<20 {
            try handle.write(
                contentsOf: Data(#"{"n":\#(index),"auth":"Bearer \#(Self.tA)","pad":""#.utf8) + padding
                    + Data(#""},"#.utf8))
        }
        try handle.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        #expect(size > 200_000_000)
        // The parent is a Python process with this one child, so its children's peak RSS is the audit's.
        let script = """
            import resource, subprocess, sys
            done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE)
            sys.stdout.write('%d %d\\n' % (done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
            sys.stdout.write(done.stdout.decode())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", script, CLIRunner.binary.path, "audit", "--jwks", jwks, "--now", "1700001000", "--format",
            "json", file.path,
        ]
        // Under AddressSanitizer (make asan), freed memory waits in a 256 MiB quarantine: a small
        // one keeps the bound about the reader, not the sanitizer.
        var environment = ProcessInfo.processInfo.environment
        if let asan = environment["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = asan + ":quarantine_size_mb=8" }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let firstLine = try #require(text.split(separator: "\n").first)
        let numbers = firstLine.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.first == 0)
        let peakKiB = try #require(numbers.last)
        #expect(peakKiB < 160 << 10, "peak RSS \(peakKiB) KiB for a \(size)-byte line")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8.dropFirst(firstLine.utf8.count + 1)))
                as? [String: Any])
        #expect(report["tokens"] as? Int == 20)
        #expect(report["valid"] as? Int == 20)
        #expect(report["discarded"] as? [String: Int] == [:])
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
