import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `jwtverify audit --format tsv` against `--format jsonl` of the same run: the same records, cell
/// for cell, read back by an independent reader, with text that must be written as JSON.
@Suite("jwtverify audit --format tsv")
struct CLIAuditTSVTests {
    /// Payloads with text a row must write as JSON (to stay one line, or to tell it from a missing
    /// value), or may write as is.
    static var awkwardPayloads: [[String: Any]] {
        let base: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": "com.example.app", "iat": 1_700_000_000, "exp": 1_700_003_600,
            "nonce": "n-aw",
        ]
        var payloads = ["tab\there", "line\nbreak\r\n", "say \"hi\"", "", "\\N", "x,y", "\"", "é 😀"].map { sub in
            base.merging(["sub": sub]) { $1 }
        }
        payloads.append(base.merging(["sub": "aw.list", "aud": ["com.example.app", "odd \"aud\"\there"]]) { $1 })
        payloads.append(base.merging(["sub": "aw.one", "aud": ["com.example.app"]]) { $1 })
        payloads.append(base.merging(["sub": "aw.iss", "iss": "https://evil\t\"x\".example"]) { $1 })
        payloads.append(base.merging(["sub": "aw.exp", "exp": 1_700_000_500.25]) { $1 })
        return payloads
    }

    static func awkwardLog() throws -> String {
        try awkwardPayloads.map { payload in
            let json = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
            return "awkward Bearer " + TokenFactory.token(payload: String(decoding: json, as: UTF8.self))
        }.joined(separator: "\n") + "\n"
    }

    @Test("every jsonl record is a row under the header, cell for cell; discards and quoting included")
    func rowsMatchRecords() throws {
        let (directory, jwks, files) = try CLIAuditTests.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let awkward = directory.appendingPathComponent("awkward.log")
        try Data(try Self.awkwardLog().utf8).write(to: awkward)
        let common = [
            "audit", "--jwks", jwks, "--now", "1700001000", "--issuer", "https://appleid.apple.com", "--discards", "-q",
        ]
        let inputs = files + [awkward.path]
        let jsonl = try CLIRunner.run(common + ["--format", "jsonl"] + inputs)
        let tsv = try CLIRunner.run(common + ["--format", "tsv"] + inputs)
        #expect(tsv.status == jsonl.status)
        #expect(tsv.stderr.isEmpty)
        let rows = try #require(TabSeparatedReader.rows(tsv.stdout))
        let header = rows.first?.map { $0 ?? "" } ?? []
        #expect(
            header == [
                "discarded", "file", "line", "column", "found_in", "valid", "reason", "detail", "alg", "kid", "iss",
                "sub", "aud", "aud_list",
                "exp", "iat", "claims_verified", "key_source", "lifetime", "evaluated_at", "fingerprint",
                "nonce_fingerprint", "anomalies",
            ])
        let records = jsonl.records
        #expect(records.count == 9 + 1 + Self.awkwardPayloads.count)  // the fixtures' 9 tokens and 1 discard
        try Self.expectRows(Array(rows.dropFirst()), header: header, equal: records)
        // The awkward text came through as written, quoted where it had to be.
        let subjects = records.suffix(Self.awkwardPayloads.count).map { $0["sub"] as? String }
        #expect(subjects == Self.awkwardPayloads.map { $0["sub"] as? String })
        #expect(tsv.stdoutText.contains("\tsay \"hi\"\t"))  // a quote inside: as is
        #expect(tsv.stdoutText.contains("\t\"tab\\there\"\t"))
        #expect(tsv.stdoutText.contains("\t\"\"\t"))  // the empty sub, not a missing one
    }

    @Test("--tagged-input and --show-tokens: the tag replaces file and line, the token is the last column")
    func taggedRows() throws {
        let (directory, jwks, _) = try CLIAuditTests.fixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        var input = Data()
        for (number, line) in try Self.awkwardLog().split(separator: "\n").enumerated() {
            input.append(Data("0:\(number + 1)\t\(line)\n".utf8))
        }
        input.append(Data("untagged \(CLIAuditTests.tA)\n".utf8))
        input.append(Data("t\tpartial \(CLIAuditTests.tA.prefix(60))\n".utf8))
        let common = [
            "audit", "--jwks", jwks, "--now", "1700001000", "--tagged-input", "--show-tokens", "--discards", "-q",
        ]
        let jsonl = try CLIRunner.run(common + ["--format", "jsonl"], input: input)
        let tsv = try CLIRunner.run(common + ["--format", "tsv"], input: input)
        let rows = try #require(TabSeparatedReader.rows(tsv.stdout))
        let header = rows.first?.map { $0 ?? "" } ?? []
        #expect(Array(header.prefix(3)) == ["discarded", "tag", "column"])
        #expect(header.last == "token")
        #expect(jsonl.records.count == Self.awkwardPayloads.count + 2)
        try Self.expectRows(Array(rows.dropFirst()), header: header, equal: jsonl.records)
        // Empty input: the header alone (what the Spark job checks on its driver).
        let empty = try CLIRunner.run(common + ["--format", "tsv"])
        #expect(empty.stdoutText == header.joined(separator: "\t") + "\n")
    }

    /// Each row against the jsonl record at its place: every column's cell as the record's member.
    static func expectRows(_ rows: [[String?]], header: [String], equal records: [[String: Any]]) throws {
        #expect(rows.count == records.count)
        for (row, record) in zip(rows, records) {
            try #require(row.count == header.count, "row \(row) has \(row.count) cells")
            let cells = Dictionary(uniqueKeysWithValues: zip(header, row))
            for (name, cell) in cells {
                if name == "aud_list" {
                    // An array's JSON: compared as the array it reads as.
                    let list = cell.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String] }
                    #expect(list == record["aud"] as? [String], "aud_list: \(String(describing: cell)) in \(record)")
                    #expect((cell == nil) == (list == nil))
                    continue
                }
                let expected = expectedCell(name, record)
                #expect(
                    cell == expected,
                    "\(name): \(String(describing: cell)) against \(String(describing: expected)) in \(record)")
            }
        }
    }

    /// What the jsonl `record` says the cell `name` holds.
    static func expectedCell(_ name: String, _ record: [String: Any]) -> String? {
        switch name {
        case "aud":
            return record["aud"] as? String
        case "anomalies":
            let words = record["anomalies"] as? [String] ?? []
            return words.isEmpty ? nil : words.joined(separator: ",")
        case "valid", "claims_verified":
            return (record[name] as? Bool).map { $0 ? "true" : "false" }
        case "line", "column", "exp", "iat", "lifetime", "evaluated_at":
            guard let value = (record[name] as? NSNumber)?.doubleValue else { return nil }
            return value == value.rounded() ? String(Int64(value)) : String(value)
        default:
            return record[name] as? String
        }
    }
}

/// Reads the rows independently of the writer: lines, split at tabs; an empty cell is `nil`, a cell
/// that starts with a quote is decoded as the JSON string it must be, any other is its own text.
enum TabSeparatedReader {
    static func rows(_ data: Data) -> [[String?]]? {
        guard data.last == UInt8(ascii: "\n") else { return data.isEmpty ? [] : nil }
        var rows: [[String?]] = []
        for line in data.dropLast().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            var row: [String?] = []
            for cell in line.split(separator: 0x09, omittingEmptySubsequences: false) {
                if cell.isEmpty {
                    row.append(nil)
                } else if cell.first == UInt8(ascii: "\"") {
                    guard
                        let text = try? JSONSerialization.jsonObject(with: Data(cell), options: [.fragmentsAllowed])
                            as? String
                    else { return nil }
                    row.append(text)
                } else {
                    if cell.contains(where: { $0 < 0x20 }) { return nil }  // would have been written as JSON
                    row.append(String(decoding: cell, as: UTF8.self))
                }
            }
            rows.append(row)
        }
        return rows
    }
}
