import Foundation
import Testing

/// `audit --reduced-repeats`, `audit reduce` and their merge: how the Spark job finds repeats and
/// shared nonces where the records are. Emulated here without Spark: two tasks handed tagged lines
/// out of order, a shuffle that groups the tasks' summaries by key, two reducing tasks per key.
@Suite("audit reduce: repeats reduced where the records are")
struct CLIAuditReduceTests {
    /// Lines grouped by their first field and dealt into two partitions by it, as Spark's shuffle
    /// and sort within partitions would.
    static func shuffled(_ lines: [Substring]) -> [[Substring]] {
        let sorted = lines.sorted {
            $0.split(separator: "\t", maxSplits: 1)[0] < $1.split(separator: "\t", maxSplits: 1)[0]
        }
        var parts: [[Substring]] = [[], []]
        for line in sorted { parts[Int(line.split(separator: "\t", maxSplits: 1)[0].utf8.last! % 2)].append(line) }
        return parts
    }

    static func lines(_ outcome: CLIRunner.Outcome) -> [Substring] { outcome.stdoutText.split(separator: "\n") }

    @Test(
        "tasks' summaries, shuffled and reduced by tokens then nonces, merged with the partials: one run over the listed files, byte for byte, in every format"
    )
    func reducedEqualsOneRun() throws {
        let (directory, _, _, inputs, common) = try CLIAuditTests.crossingInputs()
        defer { try? FileManager.default.removeItem(at: directory) }
        let listing = directory.appendingPathComponent("listing.txt")
        try Data(inputs.map { $0 + "\n" }.joined().utf8).write(to: listing)
        var tagged: [Data] = []
        for (file, input) in inputs.enumerated() {
            let text = try Data(contentsOf: URL(fileURLWithPath: input)).split(
                separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            for (number, line) in text.enumerated() { tagged.append(Data("\(file):\(number + 1)\t".utf8) + line) }
        }
        // Two tasks, each handed part of the lines, the second's before the first's.
        let cut = tagged.count / 2
        var partials: [(start: [Int], text: Substring)] = []
        var summaries: [Substring] = []
        for part in [Array(tagged[cut...]), Array(tagged[..<cut])] {
            let task = try CLIRunner.run(
                ["audit"] + common + [
                    "--tagged-input", "--format", "tsv", "--partials", "--reduced-repeats", "--listing", listing.path,
                ],
                input: Data(part.joined(separator: Data([0x0A]))))
            #expect(task.status <= 1, "\(task.stderr)")
            for line in Self.lines(task) {
                if line.hasPrefix("#partial\t") {
                    let fields = line.split(separator: "\t", maxSplits: 2)
                    partials.append(
                        (fields[1].dropFirst().dropLast().split(separator: ",").compactMap { Int($0) }, fields[2]))
                    // Named by the listing, as one run names them, and holding no distinct token.
                    #expect(
                        !fields[2].contains("\"tag\"") && fields[2].contains("\"distinct\":[]")
                            && fields[2].contains("\"repeats_tracked\":false"))
                } else if line.hasPrefix("#sighted\t") {
                    summaries.append(line.dropFirst("#sighted\t".count))
                }
            }
        }
        #expect(summaries.count >= 5)
        var nonceLines: [Substring] = []
        var reduced: [Substring] = []
        for partition in Self.shuffled(summaries) {
            let task = try CLIRunner.run(
                ["audit", "reduce", "tokens"], input: Data(partition.map { $0 + "\n" }.joined().utf8))
            #expect(task.status == 0, "\(task.stderr)")
            nonceLines += Self.lines(task)
        }
        #expect(nonceLines.filter { $0.hasPrefix("#reduced\t") }.count == 2)
        for partition in Self.shuffled(nonceLines) {
            let task = try CLIRunner.run(
                ["audit", "reduce", "nonces"], input: Data(partition.map { $0 + "\n" }.joined().utf8))
            #expect(task.status == 0, "\(task.stderr)")
            reduced += Self.lines(task)
        }
        // The token reductions passed on, and one per nonce task.
        #expect(reduced.count == 4 && reduced.allSatisfy { $0.hasPrefix("#reduced\t") })
        let ordered =
            partials.sorted { $0.start.lexicographicallyPrecedes($1.start) }.map(\.text)
            + reduced.map { $0.dropFirst("#reduced\t".count) }
        let merge = Data(ordered.map { $0 + "\n" }.joined().utf8)
        for format in ["json", "table", "markdown", "html"] {
            let single = try CLIRunner.run(["audit"] + common + ["--format", format] + inputs)
            let merged = try CLIRunner.run(["audit", "merge", "--format", format, "-"], input: merge)
            #expect(merged.status == single.status, "\(format): \(merged.stderr)")
            #expect(merged.stdoutText == single.stdoutText, "\(format) differs")
        }
        let report = try #require(
            try JSONSerialization.jsonObject(
                with: try CLIRunner.run(["audit", "merge", "--format", "json", "-"], input: merge).stdout)
                as? [String: Any])
        #expect((report["repeated_tokens"] as? Int ?? 0) >= 3 && (report["shared_nonces"] as? Int ?? 0) >= 1)
        // Partials that track no repeats are refused without their reductions.
        let alone = try CLIRunner.run(
            ["audit", "merge", "--format", "json", "-"], input: Data(partials.map { $0.text + "\n" }.joined().utf8))
        #expect(alone.status == 65 && alone.stderr.contains("both reductions"))
        // --reduced-repeats needs --partials and --listing.
        #expect(
            try CLIRunner.run(["audit"] + common + ["--format", "tsv", "--partials", "--reduced-repeats", inputs[0]])
                .status == 64)
        #expect(
            try CLIRunner.run(
                ["audit"] + common + ["--format", "tsv", "--reduced-repeats", "--listing", listing.path, inputs[0]]
            ).status == 64)
    }

    @Test(
        "reduce adds up a token's summaries from several tasks, keeps the earliest and latest sighting, passes its nonce on, and refuses ungrouped or malformed input"
    )
    func summariesAddUp() throws {
        let a = String(repeating: "a", count: 64)
        let b = String(repeating: "b", count: 64)
        let n = String(repeating: "1", count: 64)
        func sighting(_ line: Int) -> String { #"{"file":"f.log","line":\#(line),"column":3}"# }
        let input =
            [
                "\(a)\t\(n)\t2\t0,5,3\t0,9,3\t\(sighting(5))\t\(sighting(9))",
                "\(a)\t\(n)\t1\t0,2,3\t0,2,3\t\(sighting(2))\t\(sighting(2))",
                "\(b)\t\(n)\t1\t1,1,3\t1,1,3\t\(sighting(1))\t\(sighting(1))",
            ].joined(separator: "\n") + "\n"
        let tokens = try CLIRunner.run(["audit", "reduce", "tokens"], input: Data(input.utf8))
        #expect(tokens.status == 0, "\(tokens.stderr)")
        let out = Self.lines(tokens)
        #expect(out.count == 3)
        #expect(out[0] == "\(n)\t\(a)\t0,2,3\t0,9,3\t\(sighting(2))\t\(sighting(9))")
        #expect(out[1] == "\(n)\t\(b)\t1,1,3\t1,1,3\t\(sighting(1))\t\(sighting(1))")
        let reduction = try #require(
            try JSONSerialization.jsonObject(with: Data(out[2].dropFirst("#reduced\t".count).utf8)) as? [String: Any])
        #expect(reduction["by"] as? String == "tokens" && reduction["groups"] as? Int == 2)
        #expect(reduction["repeated_groups"] as? Int == 1 && reduction["extra_lines"] as? Int == 2)
        let list = try #require(reduction["list"] as? [[String: Any]])
        #expect(list.count == 1 && list[0]["fingerprint"] as? String == a && list[0]["count"] as? Int == 3)
        #expect(
            (list[0]["first"] as? [String: Any])?["line"] as? Int == 2
                && (list[0]["last"] as? [String: Any])?["line"] as? Int == 9)
        let nonces = try CLIRunner.run(
            ["audit", "reduce", "nonces"], input: Data((out[0...1].joined(separator: "\n") + "\n").utf8))
        let shared = try #require(
            try JSONSerialization.jsonObject(with: Data(nonces.stdoutText.dropFirst("#reduced\t".count).utf8))
                as? [String: Any])
        #expect(shared["repeated_groups"] as? Int == 1 && shared["lines_in_repeated_groups"] as? Int == 2)
        // The nonce's first sighting is its earliest token's (file 0, line 2); its last the latest
        // of any of its tokens' (file 1, line 1, after file 0's line 9).
        let entry = try #require((shared["list"] as? [[String: Any]])?.first)
        #expect(
            (entry["first"] as? [String: Any])?["line"] as? Int == 2
                && (entry["last"] as? [String: Any])?["line"] as? Int == 1)
        // Ungrouped (a key after a greater one) and malformed lines are data errors, never a wrong count.
        let ungrouped =
            [input.split(separator: "\n")[2], input.split(separator: "\n")[0]].joined(separator: "\n") + "\n"
        let refused = try CLIRunner.run(["audit", "reduce", "tokens"], input: Data(ungrouped.utf8))
        #expect(refused.status == 65 && refused.stderr.contains("not grouped"))
        #expect(try CLIRunner.run(["audit", "reduce", "tokens"], input: Data("\(a)\tonly two\n".utf8)).status == 65)
        #expect(try CLIRunner.run(["audit", "reduce", "pairs"]).status == 64)
        #expect(try CLIRunner.run(["audit", "reduce"]).status == 64)
    }
}
