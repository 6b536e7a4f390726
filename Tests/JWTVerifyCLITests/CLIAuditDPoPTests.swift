import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `jwtverify audit` over a gateway log with RFC 9068 access tokens and RFC 9449 DPoP proofs:
/// proofs judged by their own header key and counted apart, access tokens counted by kind, and
/// the two DPoP findings (a proof's `jti` replayed; a bound token without its proof on its line).
@Suite("jwtverify audit: access tokens and DPoP proofs")
struct CLIAuditDPoPTests {
    typealias F = DPoPProofFactory

    /// The log: an unbound access token; a bound one with its proof; a bound one alone; one proof
    /// on two lines; a proof whose signature is another proof's.
    struct Log {
        let unbound = F.accessToken(boundTo: nil, jti: "at-0")
        let bound = F.accessToken(boundTo: F.thumbprint(F.ec), jti: "at-1")
        let alone = F.accessToken(boundTo: F.thumbprint(F.ec), jti: "at-3")
        let withToken: String
        let replayed = F.proof(claims: F.claims(htm: "POST", jti: "proof-2"))
        let forged: String
        // ES256 signatures are randomised: each proof is made once.
        init() {
            withToken = F.proof(claims: F.claims(jti: "proof-1", token: bound))
            let other = F.proof(claims: F.claims(jti: "proof-3"))
            forged =
                other.split(separator: ".").prefix(2).joined(separator: ".") + "." + replayed.split(separator: ".")[2]
        }
        var text: String {
            [
                "GET /a Authorization: Bearer \(unbound)",
                "GET /orders Authorization: DPoP \(bound) DPoP: \(withToken)",
                "GET /orders Authorization: DPoP \(alone)",
                "POST /orders DPoP: \(replayed)",
                "POST /orders DPoP: \(replayed)",
                "GET /orders DPoP: \(forged)",
            ].joined(separator: "\n") + "\n"
        }
    }

    static func run(_ workspace: TestWorkspace, _ log: URL, _ format: String) throws -> CLIRunner.Outcome {
        try CLIRunner.run([
            "audit", "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks",
            workspace.jwks.path, "--now", "1700001000", "--format", format, log.path,
        ])
    }

    /// `FILE:LINE:COLUMN` of a sighting's JSON.
    static func place(_ value: Any?) -> String? {
        guard let fields = value as? [String: Any], let file = fields["file"] as? String,
            let line = fields["line"] as? Int, let column = fields["column"] as? Int
        else { return nil }
        return "\(file):\(line):\(column)"
    }

    static func sha256(_ text: String) -> String { Array(text.utf8).withUnsafeBytes { SHA256Digest(hashing: $0).hex } }

    /// A proof's exact jsonl record.
    static func proofRecord(
        _ file: String, line: Int, column: Int, proof: String, jti: String, htm: String, reason: String? = nil,
        detail: String? = nil
    ) -> String {
        let verdict =
            reason.map { #""valid":false,"reason":"\#($0)","detail":"\#(detail!)""# }
            ?? #""valid":true,"reason":null,"detail":null"#
        return #"{"file":"\#(file)","line":\#(line),"column":\#(column),"found_in":"text","kind":"dpop_proof","#
            + verdict + #","alg":"ES256","jti":"\#(jti)","htm":"\#(htm)","htu":"\#(F.uri)","iat":1700001000,"#
            + #""jkt":"\#(F.thumbprint(F.ec))","fingerprint":"\#(sha256(proof))"}"#
    }

    @Test(
        "jsonl: access tokens with their kind, binding and whether their proof is on the line; each proof judged by its own jwk"
    )
    func records() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let log = workspace.file("gateway.log")
        let fixture = Log()
        try fixture.text.write(to: log, atomically: true, encoding: .utf8)
        let outcome = try Self.run(workspace, log, "jsonl")
        // A rejected token (the bound ones) and a rejected proof: status 1.
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr == "jwtverify: 3 tokens found, 1 valid, 2 rejected; 4 DPoP proofs, 3 valid, 1 rejected\n")
        let lines = outcome.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 7, "\(outcome.stdoutText)")
        let records = outcome.records
        // Access tokens: judged as audit judges tokens (audit takes no request, so a bound token
        // is dpop_missing under --profile access-token, as verify without --dpop says).
        let tokens = [records[0], records[1], records[3]]
        #expect(tokens.map { $0["kind"] as? String } == ["access_token", "access_token", "access_token"])
        #expect(tokens.map { $0["line"] as? Int } == [1, 2, 3])
        #expect(tokens.map { $0["column"] as? Int } == [30, 33, 33])
        #expect(tokens.map { $0["valid"] as? Bool } == [true, false, false])
        #expect(tokens.map { $0["reason"] as? String } == [nil, "dpop_missing", "dpop_missing"])
        #expect(tokens.map { $0["cnf_jkt"] as? String } == [nil, F.thumbprint(F.ec), F.thumbprint(F.ec)])
        #expect(records[0]["cnf_jkt"] is NSNull)
        #expect(tokens.map { $0["proof_on_line"] as? Bool } == [false, true, false])
        #expect(
            tokens.map { $0["fingerprint"] as? String }
                == [Self.sha256(fixture.unbound), Self.sha256(fixture.bound), Self.sha256(fixture.alone)])
        // Proofs: the exact records, in their place among the tokens.
        let path = log.path
        #expect(
            lines[2]
                == Self.proofRecord(
                    path, line: 2, column: 33 + fixture.bound.utf8.count + 7, proof: fixture.withToken,
                    jti: "proof-1", htm: "GET"))
        for (index, line) in [(4, 4), (5, 5)] {
            #expect(
                lines[index]
                    == Self.proofRecord(
                        path, line: line, column: 20, proof: fixture.replayed, jti: "proof-2", htm: "POST"))
        }
        #expect(
            lines[6]
                == Self.proofRecord(
                    path, line: 6, column: 19, proof: fixture.forged, jti: "proof-3", htm: "GET",
                    reason: "dpop_invalid",
                    detail: "the proof's signature does not verify with the jwk of its header"))
        // No proof went to the audit's keys: none is counted among the tokens or by kid.
        #expect(!records.contains { $0["kid"] as? String == "dpop-ec" })
    }

    @Test(
        "every format leads with the DPoP findings: a proof's jti seen twice, a bound token without its proof, proof rejections"
    )
    func findings() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let log = workspace.file("gateway.log")
        let fixture = Log()
        try fixture.text.write(to: log, atomically: true, encoding: .utf8)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.run(workspace, log, "json").stdout)) as? [String: Any])
        #expect(json["tokens"] as? Int == 3 && json["valid"] as? Int == 1 && json["rejected"] as? Int == 2)
        let proofs = try #require(json["dpop_proofs"] as? [String: Any])
        #expect(proofs["found"] as? Int == 4 && proofs["valid"] as? Int == 3 && proofs["rejected"] as? Int == 1)
        #expect(proofs["by_reason"] as? [String: Int] == ["dpop_invalid": 1])
        #expect(json["by_kind"] as? [String: Int] == ["access_token": 3])
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(
            findings.map { $0["kind"] as? String } == [
                "replayed_dpop_proof", "access_token_without_proof", "dpop_proof_rejections", "anomaly", "rejections",
            ])
        let replayTitle = "DPoP proofs replayed (a jti of one key seen more than once): 1 jti, 1 extra occurrence"
        #expect(findings[0]["title"] as? String == replayTitle && findings[0]["count"] as? Int == 1)
        let replay = try #require((findings[0]["evidence"] as? [[String: Any]])?.first)
        #expect(replay["value"] as? String == "dpop jti proof-2 jkt \(F.thumbprint(F.ec))")
        #expect(replay["count"] as? Int == 2)
        #expect(Self.place(replay["first"]) == "\(log.path):4:20")
        #expect(Self.place(replay["last"]) == "\(log.path):5:20")
        let unboundTitle = "Access tokens bound to a key (cnf.jkt) without a valid proof of it on their line: 1"
        #expect(findings[1]["title"] as? String == unboundTitle && findings[1]["count"] as? Int == 1)
        let unbound = try #require(findings[1]["evidence"] as? [[String: Any]])
        #expect(unbound.count == 1)
        #expect(
            unbound[0]["value"] as? String == "token sha256 \(Self.sha256(fixture.alone)) cnf.jkt \(F.thumbprint(F.ec))"
        )
        #expect(Self.place(unbound[0]["first"]) == "\(log.path):3:33")
        #expect(unbound[0]["last"] == nil)
        #expect(findings[2]["title"] as? String == "DPoP proof rejections by reason: 1")
        // The table: the findings first, with their evidence, and the proofs counted apart.
        let table = try Self.run(workspace, log, "table").stdoutText
        let expected = """
            FINDINGS
              1. \(replayTitle)
                   dpop jti proof-2 jkt \(F.thumbprint(F.ec))  2  first \(log.path):4:20  last \(log.path):5:20
              2. \(unboundTitle)
                   token sha256 \(Self.sha256(fixture.alone)) cnf.jkt \(F.thumbprint(F.ec))  1  first \(log.path):3:33
              3. DPoP proof rejections by reason: 1
                   dpop_invalid  1

            """
        let block = try #require(table.range(of: expected), "\(table.prefix(1500))")
        #expect(block.lowerBound < table.range(of: "STATISTICS")!.lowerBound)
        #expect(
            table.hasPrefix(
                "TOKEN AUDIT\n\n3 occurrences of 3 distinct tokens: 1 valid, 2 rejected\n\n"
                    + "Among them 3 access token occurrences (typ at+jwt)\n\n"
                    + "4 DPoP proofs (typ dpop+jwt), apart from the tokens: 3 valid, 1 rejected\n\n"))
        let markdown = try Self.run(workspace, log, "markdown").stdoutText
        #expect(markdown.contains("## Findings\n\n1. **\(replayTitle)**\n"))
        let html = try Self.run(workspace, log, "html").stdoutText
        #expect(html.contains("<strong>\(unboundTitle)</strong>"))
        #expect(html.contains("<dt>DPoP proofs</dt><dd>4: 3 valid, 1 rejected</dd>"), "\(html.prefix(4000))")
        // The anomalies panel names the DPoP findings too.
        let panel = try #require(html.range(of: "<h2 id=\"anomalies\">"))
        let anomalies = html[panel.upperBound...].prefix(6000)
        #expect(anomalies.contains("DPoP proofs replayed (a jti of one key seen more than once)"))
        #expect(anomalies.contains("access tokens bound to a key without a valid proof of it on their line"))
        #expect(anomalies.contains("rejected DPoP proofs"))
    }

    @Test("a bound token's proof counts only when valid and of its key: a forged proof or another key's is no proof")
    func binding() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let log = workspace.file("gateway.log")
        let fixture = Log()
        let token = F.accessToken(boundTo: F.thumbprint(F.ec), jti: "at-7")
        let other = F.proof(F.rsa, claims: F.claims(jti: "proof-9", token: token))
        try [
            "GET /orders Authorization: DPoP \(token) DPoP: \(fixture.forged)",
            "GET /orders Authorization: DPoP \(F.accessToken(boundTo: F.thumbprint(F.ec), jti: "at-8")) DPoP: \(other)",
            // The proof on the line before is not on this token's line.
            "GET /orders DPoP: \(F.proof(claims: F.claims(jti: "proof-10")))",
            "GET /orders Authorization: DPoP \(F.accessToken(boundTo: F.thumbprint(F.ec), jti: "at-9"))",
        ].joined(separator: "\n").write(to: log, atomically: true, encoding: .utf8)
        let outcome = try Self.run(workspace, log, "jsonl")
        let tokens = outcome.records.filter { $0["kind"] as? String == "access_token" }
        #expect(tokens.map { $0["line"] as? Int } == [1, 2, 4])
        #expect(tokens.map { $0["proof_on_line"] as? Bool } == [false, false, false])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try Self.run(workspace, log, "json").stdout)) as? [String: Any])
        let finding = try #require(
            (json["findings"] as? [[String: Any]])?.first { $0["kind"] as? String == "access_token_without_proof" })
        #expect(finding["count"] as? Int == 3)
        #expect(
            (finding["evidence"] as? [[String: Any]])?.map { ($0["first"] as? [String: Any])?["line"] as? Int }
                == [1, 2, 4])
        // Three proofs of distinct jti: no replay.
        #expect(
            !(json["findings"] as? [[String: Any]] ?? []).contains { $0["kind"] as? String == "replayed_dpop_proof" })
    }

    @Test(
        "partials carry proofs and bound tokens: a proof replayed across two files is found by audit merge, and a saved report renders the same"
    )
    func merged() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let fixture = Log()
        let first = workspace.file("a.log")
        let second = workspace.file("b.log")
        let lines = fixture.text.split(separator: "\n")
        try (lines[..<4].joined(separator: "\n") + "\n").write(to: first, atomically: true, encoding: .utf8)
        try (lines[4...].joined(separator: "\n") + "\n").write(to: second, atomically: true, encoding: .utf8)
        let flags = [
            "audit", "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks",
            workspace.jwks.path, "--now", "1700001000",
        ]
        var partials: [String] = []
        for file in [first, second] {
            let part = try CLIRunner.run(flags + ["--format", "partial", file.path])
            #expect(part.status == 1)
            partials.append(part.stdoutText)
        }
        // jsonl with --partials: the partial line after each file's records carries the same.
        let stage = try CLIRunner.run(flags + ["--format", "jsonl", "--partials", first.path, second.path])
        let stagePartials = stage.stdoutText.split(separator: "\n").filter { $0.hasPrefix("#partial\t") }
            .map { String($0.split(separator: "\t", maxSplits: 2)[2]) + "\n" }
        #expect(stagePartials == partials)
        let partialFile = workspace.file("partials.jsonl")
        try partials.joined().write(to: partialFile, atomically: true, encoding: .utf8)
        for format in ["json", "table"] {
            let merged = try CLIRunner.run(["audit", "merge", "--format", format, partialFile.path])
            let single = try CLIRunner.run(flags + ["--format", format, first.path, second.path])
            #expect(merged.status == 1 && single.status == 1)
            #expect(merged.stdoutText == single.stdoutText, "\(format)")
            #expect(single.stdoutText.contains("DPoP proofs replayed (a jti of one key seen more than once): 1 jti"))
        }
        let single = try CLIRunner.run(flags + ["--format", "json", first.path, second.path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(single.stdout)) as? [String: Any])
        let replay = try #require(
            (json["findings"] as? [[String: Any]])?.first { $0["kind"] as? String == "replayed_dpop_proof" })
        let evidence = try #require((replay["evidence"] as? [[String: Any]])?.first)
        #expect(Self.place(evidence["first"]) == "\(first.path):4:20")
        #expect(Self.place(evidence["last"]) == "\(second.path):1:20")
        // audit render: the saved report gives the table audit prints.
        let saved = workspace.file("report.json")
        try single.stdout.write(to: saved)
        let rendered = try CLIRunner.run(["audit", "render", "--format", "table", saved.path])
        let table = try CLIRunner.run(flags + ["--format", "table", first.path, second.path])
        #expect(rendered.stdoutText == table.stdoutText)
    }

    @Test("exit status: 0 when every token and proof is valid, 1 for a rejected proof alone, in audit and audit merge")
    func exitStatus() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let fixture = Log()
        for (text, status) in [("DPoP: \(fixture.replayed)\n", Int32(0)), ("DPoP: \(fixture.forged)\n", 1)] {
            let log = workspace.file("proofs.log")
            try text.write(to: log, atomically: true, encoding: .utf8)
            let jsonl = try Self.run(workspace, log, "jsonl")
            #expect(jsonl.status == status)
            #expect(
                jsonl.stderr
                    == "jwtverify: 0 tokens found, 0 valid, 0 rejected; 1 DPoP proof, \(1 - status) valid, "
                    + "\(status) rejected\n")
            let partial = try Self.run(workspace, log, "partial")
            #expect(partial.status == status)
            let file = workspace.file("proofs.partial")
            try partial.stdout.write(to: file)
            #expect(try CLIRunner.run(["audit", "merge", "--format", "json", file.path]).status == status)
        }

        // A jti is untrusted text: its control characters do not break the report's lines.
        let odd = F.proof(claims: #"{"jti":"a\nb","htm":"GET","htu":"\#(F.uri)","iat":1700001000}"#)
        let log = workspace.file("odd.log")
        try "DPoP: \(odd)\nDPoP: \(odd)\n".write(to: log, atomically: true, encoding: .utf8)
        let table = try Self.run(workspace, log, "table").stdoutText
        #expect(
            table.contains(
                "       dpop jti a?b jkt \(F.thumbprint(F.ec))  2  first \(log.path):1:7  last \(log.path):2:7\n"))
    }

    @Test(
        "the Spark job's stage (tagged tsv, partials, reduced repeats) carries proofs and bound tokens to its merge: the report of one run"
    )
    func sparkStage() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let fixture = Log()
        let first = workspace.file("a.log")
        let second = workspace.file("b.log")
        let lines = fixture.text.split(separator: "\n")
        try (lines[..<4].joined(separator: "\n") + "\n").write(to: first, atomically: true, encoding: .utf8)
        try (lines[4...].joined(separator: "\n") + "\n").write(to: second, atomically: true, encoding: .utf8)
        let inputs = [first.path, second.path]
        let listing = workspace.file("listing.txt")
        try inputs.map { $0 + "\n" }.joined().write(to: listing, atomically: true, encoding: .utf8)
        let common = [
            "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks",
            workspace.jwks.path, "--now", "1700001000",
        ]
        var tagged: [String] = []
        for (file, input) in inputs.enumerated() {
            let text = try String(contentsOfFile: input, encoding: .utf8).split(separator: "\n")
            for (number, line) in text.enumerated() { tagged.append("\(file):\(number + 1)\t\(line)") }
        }
        // Two tasks, the second half's first; tsv rows hold the tokens only.
        var partials: [(start: [Int], text: Substring)] = []
        var summaries: [Substring] = []
        var rows = 0
        for part in [Array(tagged[3...]), Array(tagged[..<3])] {
            let task = try CLIRunner.run(
                ["audit"] + common + [
                    "--tagged-input", "--format", "tsv", "--partials", "--reduced-repeats", "--listing", listing.path,
                ],
                input: Data((part.joined(separator: "\n") + "\n").utf8))
            #expect(task.status == 1, "\(task.stderr)")
            for line in CLIAuditReduceTests.lines(task) {
                if line.hasPrefix("#partial\t") {
                    let fields = line.split(separator: "\t", maxSplits: 2)
                    partials.append(
                        (fields[1].dropFirst().dropLast().split(separator: ",").compactMap { Int($0) }, fields[2]))
                } else if line.hasPrefix("#sighted\t") {
                    summaries.append(line.dropFirst("#sighted\t".count))
                } else if !line.hasPrefix("discarded\t") {
                    rows += 1
                }
            }
        }
        #expect(rows == 3)
        var nonceLines: [Substring] = []
        for partition in CLIAuditReduceTests.shuffled(summaries) {
            let task = try CLIRunner.run(
                ["audit", "reduce", "tokens"], input: Data(partition.map { $0 + "\n" }.joined().utf8))
            nonceLines += CLIAuditReduceTests.lines(task)
        }
        var reduced: [Substring] = []
        for partition in CLIAuditReduceTests.shuffled(nonceLines) {
            let task = try CLIRunner.run(
                ["audit", "reduce", "nonces"], input: Data(partition.map { $0 + "\n" }.joined().utf8))
            reduced += CLIAuditReduceTests.lines(task)
        }
        let ordered =
            partials.sorted { $0.start.lexicographicallyPrecedes($1.start) }.map(\.text)
            + reduced.map { $0.dropFirst("#reduced\t".count) }
        let merge = Data(ordered.map { $0 + "\n" }.joined().utf8)
        for format in ["json", "table"] {
            let single = try CLIRunner.run(["audit"] + common + ["--format", format] + inputs)
            let merged = try CLIRunner.run(["audit", "merge", "--format", format, "-"], input: merge)
            #expect(merged.status == 1 && single.status == 1, "\(format): \(merged.stderr)")
            #expect(merged.stdoutText == single.stdoutText, "\(format) differs")
        }
        let table = try CLIRunner.run(["audit", "merge", "--format", "table", "-"], input: merge).stdoutText
        #expect(
            table.contains(
                "dpop jti proof-2 jkt \(F.thumbprint(F.ec))  2  first \(first.path):4:20  last \(second.path):1:20\n"))
        #expect(table.contains("cnf.jkt \(F.thumbprint(F.ec))  1  first \(first.path):3:33\n"))
    }

    @Test(
        "no proof without typ dpop+jwt byte for byte and a jwk: a relabelled token or DPoP+JWT is judged as any token")
    func recognition() throws {
        let workspace = try TestWorkspace("audit-dpop", keysFile: "keys.json")
        let relabelled = TokenFactory.token(
            header: #"{"alg":"RS256","kid":"rsa-a","typ":"dpop+jwt"}"#, payload: F.claims(jti: "r-1"))
        let upper = F.proof(header: F.header(F.ec, typ: "DPoP+JWT"), claims: F.claims(jti: "r-2"))
        let log = workspace.file("typ.log")
        try "x \(relabelled)\ny \(upper)\n".write(to: log, atomically: true, encoding: .utf8)
        let records = try Self.run(workspace, log, "jsonl").records
        #expect(records.map { $0["kind"] as? String } == ["token", "token"])
        #expect(records.map { $0["reason"] as? String } == ["header_invalid", "header_invalid"])
    }
}
