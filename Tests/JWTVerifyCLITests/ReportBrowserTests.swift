import Foundation
import Testing

/// `audit --format html` in a real browser: Debian's headless Chromium loads the page from a
/// file, and the test reads what it rendered, what it logged and what it drew.
@Suite(
    "the html report in headless Chromium",
    .enabled(if: ExternalProgram.path("chromium") != nil, ExternalProgram.missing("chromium")))
struct ReportBrowserTests {
    static let flags = [
        "--jwks", CLIRunner.repositoryRoot.appendingPathComponent("Vectors/jwks.json").path, "--issuer",
        "https://appleid.apple.com",
        "--audience", "com.example.app", "--now", "2026-01-01T00:00:00Z",
        CLIRunner.repositoryRoot.appendingPathComponent("Vectors/samples/apple-identity-tokens.jsonl").path,
    ]

    /// Runs headless Chromium on `page` with `arguments`; its stdout and stderr.
    static func chromium(_ arguments: [String], page: URL) throws -> (stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalProgram.path("chromium")!)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)",
                "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000",
            ] + arguments + [page.absoluteString]
        process.environment = ["HOME": profile.path, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = ErrorBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errors.data = err.fileHandleForReading.readDataToEndOfFile() }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        group.wait()
        return (String(decoding: output, as: UTF8.self), String(decoding: errors.data, as: UTF8.self))
    }

    final class ErrorBox: @unchecked Sendable { var data = Data() }

    /// Console messages and blocked loads Chromium logged for the page.
    static func problems(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { line in
            line.contains("CONSOLE") || line.contains("Refused to") || line.contains("net::ERR")
        }
    }

    static func page(_ html: Data, name: String = "report.html") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try html.write(to: url)
        return url
    }

    @Test(
        "the page loads with no console message and no request; it shows the totals and every reason; its data is --format json's"
    )
    func rendered() throws {
        let html = try CLIRunner.run(["audit", "--format", "html"] + Self.flags)
        let json = try CLIRunner.run(["audit", "--format", "json"] + Self.flags)
        #expect(html.status == 1)
        let page = try Self.page(html.stdout)
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let run = try Self.chromium(["--dump-dom"], page: page)
        #expect(Self.problems(run.stderr).isEmpty, "\(Self.problems(run.stderr))")
        let dom = run.stdout
        #expect(dom.contains("<h1>Token audit</h1>"))
        let report = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        for (name, value) in [
            ("Occurrences", report["tokens"]), ("Valid", report["valid"]), ("Rejected", report["rejected"]),
        ] {
            #expect(dom.contains("<dt>\(name)</dt><dd>\(value as? Int ?? -1)</dd>"), "\(name)")
        }
        for reason in (report["by_reason"] as? [String: Int] ?? [:]).keys {
            #expect(dom.contains(">\(reason)</text>"), "\(reason)")
        }
        #expect(dom.contains("at 2026-01-01T00:00:00Z"))
        // The timeline: one column per hour with tokens, each titled with its counts.
        #expect(dom.contains("Tokens over time (by iat, per hour)"))
        let timeline = try #require(report["timeline"] as? [String: Any])
        for bucket in timeline["buckets"] as? [[Int]] ?? [] {
            #expect(dom.contains(": \(bucket[1]) valid, \(bucket[2]) rejected</title>"), "\(bucket)")
        }
        // The embedded report, as the browser parsed the page, is --format json's.
        let start = try #require(dom.range(of: #"<script type="application/json" id="report-data">"#))
        let end = try #require(dom.range(of: "</script>", range: start.upperBound..<dom.endIndex))
        let embedded =
            try JSONSerialization.jsonObject(with: Data(dom[start.upperBound..<end.lowerBound].utf8)) as? NSDictionary
        #expect(embedded == (report as NSDictionary))
    }

    @Test("the per-token table: one row per occurrence; the reason filter (from #reason=) hides every other row")
    func tokenTableFilter() throws {
        let html = try CLIRunner.run(["audit", "--format", "html"] + Self.flags)
        let json = try CLIRunner.run(["audit", "--format", "json"] + Self.flags)
        let report = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let table = try #require(report["tokens_table"] as? [String: Any])
        let rows = try #require(table["rows"] as? [[String: Any]])
        #expect(rows.count == 26)
        #expect(table["omitted"] as? Int == 0)
        let page = try Self.page(html.stdout)
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        func rendered(_ fragment: String) throws -> (shown: [String], hidden: Int) {
            let url = URL(string: page.absoluteString + fragment)!
            let run = try Self.chromium(["--dump-dom"], page: url)
            #expect(Self.problems(run.stderr).isEmpty, "\(Self.problems(run.stderr))")
            let lines = run.stdout.split(separator: "\n").filter { $0.hasPrefix("<tr class=") }
            let shown = lines.filter { !$0.contains(" hidden") }.compactMap { line -> String? in
                guard let start = line.range(of: "data-reason=\""),
                    let end = line[start.upperBound...].firstIndex(of: "\"")
                else { return nil }
                return String(line[start.upperBound..<end])
            }
            return (shown, lines.count - shown.count)
        }
        let all = try rendered("")
        #expect(all.shown.count == 26 && all.hidden == 0)
        let expired = try rendered("#reason=expired")
        #expect(expired.shown == ["expired"])
        #expect(expired.hidden == 25)
        let valid = try rendered("#reason=valid")
        #expect(valid.shown.count == report["valid"] as? Int)
        #expect(Set(valid.shown) == ["valid"])
    }

    @Test("the check for requests and console messages catches a page that makes one")
    func negativeControl() throws {
        let html = try CLIRunner.run(["audit", "--format", "html"] + Self.flags)
        let tainted = html.stdoutText.replacingOccurrences(
            of: "</body>", with: #"<img src="http://127.0.0.1:9/x.png" alt="x"></body>"#)
        let page = try Self.page(Data(tainted.utf8))
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let run = try Self.chromium(["--dump-dom"], page: page)
        #expect(!Self.problems(run.stderr).isEmpty, "no complaint logged for an external image")
    }

    @Test("a screenshot at 1280 px and one at phone width are not blank")
    func screenshots() throws {
        let html = try CLIRunner.run(["audit", "--format", "html"] + Self.flags)
        let page = try Self.page(html.stdout)
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        for size in ["1280,1400", "390,1400"] {
            let shot = page.deletingLastPathComponent().appendingPathComponent("shot-\(size).png")
            _ = try Self.chromium(
                ["--hide-scrollbars", "--window-size=\(size)", "--screenshot=\(shot.path)"], page: page)
            let colours = try Self.distinctColours(shot)
            #expect(colours > 20, "a \(size) screenshot has \(colours) colours")
        }
    }

    @Test("at phone width nothing is wider than the screen: long tables scroll inside their box")
    func phoneWidth() throws {
        // The log under a long path without a hyphen to break at, which the findings name: a path
        // must wrap, wherever the log is.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverifyphone\(UUID().uuidString.filter { $0 != "-" })/capturedlogsoftheproductiongateway20261203/regioneuwest"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: folder.deletingLastPathComponent().deletingLastPathComponent())
        }
        let log = folder.appendingPathComponent("apple-identity-tokens.jsonl")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Self.flags.last!), to: log)
        let html = try CLIRunner.run(["audit", "--format", "html"] + Self.flags.dropLast() + [log.path])
        #expect(html.stdoutText.contains(log.path + ":1:"), "the findings name the log's path")
        // A probe appended to a copy: it writes what overflows into the DOM that Chromium dumps.
        let probe = #"""
            <script>
            window.addEventListener("load", function () {
              var wide = [];
              document.querySelectorAll("body *").forEach(function (e) {
                var r = e.getBoundingClientRect();
                if (r.right > window.innerWidth + 1 && !e.closest(".scroll")) wide.push(e.tagName + (e.id ? "#" + e.id : ""));
              });
              document.body.setAttribute("data-probe", window.innerWidth + " " + document.documentElement.scrollWidth + " " + wide.slice(0, 5).join(","));
            });
            </script></body>
            """#
        let page = try Self.page(Data(html.stdoutText.replacingOccurrences(of: "</body>", with: probe).utf8))
        defer { try? FileManager.default.removeItem(at: page.deletingLastPathComponent()) }
        let run = try Self.chromium(["--window-size=390,1400", "--dump-dom"], page: page)
        let start = try #require(run.stdout.range(of: "data-probe=\""))
        let value = run.stdout[start.upperBound...].prefix { $0 != "\"" }
        let parts = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3, "\(value)")
        // Asked for 390 px; headless Chromium's narrowest window is 500 px.
        #expect((Int(parts[0]) ?? 0) <= 500, "\(value)")
        #expect(
            (Int(parts[1]) ?? .max) <= (Int(parts[0]) ?? 0),
            "the page is \(parts[1]) px wide at \(parts[0]) px: \(value)")
        #expect(parts.count == 3 && parts[2].isEmpty, "wider than the screen: \(parts.count == 3 ? parts[2] : "")")
    }

    /// Distinct byte values in the PNG's decoded pixel rows (a blank page has one or two), read by
    /// Python's zlib.
    static func distinctColours(_ png: URL) throws -> Int {
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], "rb").read()
            assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
            i, idat = 8, b""
            while i < len(data):
                n, kind = struct.unpack(">I4s", data[i:i + 8])
                if kind == b"IDAT": idat += data[i + 8:i + 8 + n]
                i += 12 + n
            print(len(set(zlib.decompress(idat))))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, png.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
