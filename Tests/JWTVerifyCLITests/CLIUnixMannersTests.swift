import Foundation
import JWTVerifyTestSupport
import Testing

/// What Unix users expect of a command-line tool: a reader that goes away ends the command
/// quietly; a mistyped subcommand is answered with the ones there are; the manual pages and shell
/// completions say exactly what the binary accepts.
@Suite("Unix manners, manual pages and completions")
struct CLIUnixMannersTests {
    @Test("verify | head -1: the command ends at once, by SIGPIPE as Unix tools do, with nothing on stderr")
    func closedOutput() throws {
        let workspace = try TestWorkspace("pipe", withKeys: false)
        let directory = workspace.directory
        // 200,000 lines: far more records than a pipe holds, so the writer meets the closed pipe.
        let input = directory.appendingPathComponent("tokens.txt")
        try Data(String(repeating: "not-a-token\n", count: 200_000).utf8).write(to: input)
        let script =
            #""$1" verify --jwks "$2" --issuer i --audience a "$3" 2>"$4" | head -1 >/dev/null; echo "${PIPESTATUS[0]}""#
        let stderr = directory.appendingPathComponent("stderr.txt")
        let run = try CLIRunner.runProgram(
            "/bin/bash",
            [
                "-c", script, "bash", CLIRunner.binary.path,
                CLIRunner.repositoryRoot.appendingPathComponent("Vectors/jwks.json").path, input.path, stderr.path,
            ])
        #expect(
            run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "141", "exit status \(run.stdoutText)")
        #expect(try String(contentsOf: stderr, encoding: .utf8) == "")
    }

    @Test("an unknown command or subcommand lists the ones there are")
    func unknownSubcommands() throws {
        let command = try CLIRunner.run(["verfy"])
        #expect(
            command.status == 64
                && command.stderr.contains(
                    #"unknown command "verfy" (commands: verify, audit, inspect, serve, bench, apple, jwks, completion, manual); did you mean "verify"?"#
                ), "\(command.stderr)")
        let jwks = try CLIRunner.run(["jwks", "list"])
        #expect(
            jwks.status == 64 && jwks.stderr.contains(#"unknown jwks subcommand "list": show, fetch"#), "\(jwks.stderr)"
        )
        let apple = try CLIRunner.run(["apple", "renew"])
        #expect(
            apple.status == 64 && apple.stderr.contains("client-secret, exchange, refresh, revoke, transfer"),
            "\(apple.stderr)")
        let completion = try CLIRunner.run(["completion", "fish"])
        #expect(completion.status == 64 && completion.stderr.contains("bash, zsh"))
        let manual = try CLIRunner.run(["manual", "verfy"])
        #expect(manual.status == 64 && manual.stderr.contains("verify, audit"))
    }

    /// Text as the manual pages write it (roff: backslashes and hyphens escaped).
    static func roff(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }

    @Test(
        "one command table: each command it lists is dispatched, in the top help with its manual page's summary, and completed by bash and zsh; none of these lists another"
    )
    func oneCommandTable() throws {
        let commands = try CLIRunner.run(["manual", "--commands"]).stdoutText.split(separator: "\n").map(String.init)
        #expect(commands == ["verify", "audit", "inspect", "serve", "bench", "apple", "jwks", "completion", "manual"])
        // The top help's COMMANDS: "  name  Summary" lines, continued on lines indented further.
        let top = try CLIRunner.run(["--help"]).stdoutText
        let start = try #require(top.range(of: "\nCOMMANDS:\n")).upperBound
        var listed: [(name: String, summary: String)] = []
        for line in top[start...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            if line.hasPrefix("   "), !listed.isEmpty {
                listed[listed.count - 1].summary += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                listed.append((words.first ?? "", words.count > 1 ? words[1].trimmingCharacters(in: .whitespaces) : ""))
            }
        }
        #expect(listed.map(\.name) == commands, "the top help lists \(listed.map(\.name))")
        #expect(!top.contains("UNVERIFIED unless"))
        let bash = try CLIRunner.run(["completion", "bash"]).stdoutText
        let zsh = try CLIRunner.run(["completion", "zsh"]).stdoutText
        for command in commands {
            // Dispatch: the command runs (its --help, as the page's synopsis has it).
            let help = try CLIRunner.run([command, "--help"])
            #expect(help.status == 0 && help.stderr.isEmpty, "\(command) --help: \(help.status) \(help.stderr)")
            let usage = try #require(help.stdoutText.split(separator: "\n").first.map(String.init), "\(command)")
            #expect(usage.hasPrefix("USAGE: jwtverify \(command)"), "\(command) --help starts \(usage)")
            let page = try CLIRunner.run(["manual", command]).stdoutText
            #expect(
                page.contains(".SH SYNOPSIS\n.nf\n" + Self.roff(String(usage.dropFirst("USAGE: ".count))) + "\n"),
                "jwtverify-\(command)(1)")
            // The manual page's NAME is the top help's summary.
            let name = "\n" + Self.roff("jwtverify-\(command)") + " \\- "
            let summary =
                page.range(of: name).map { page[$0.upperBound...].prefix { $0 != "\n" } }.map(String.init) ?? ""
            let expected = summary.prefix(1).uppercased() + summary.dropFirst() + "."
            let shown = listed.first { $0.name == command }?.summary ?? ""
            #expect(
                !summary.isEmpty && Self.roff(shown) == expected, "\(command): top help \(shown), manual \(summary)")
            #expect(bash.contains("\n        \(command)) options="), "bash completion lacks \(command)'s options")
            #expect(
                zsh.contains("\n    '\(command):") && zsh.contains("\n    \(command))\n"),
                "zsh completion lacks \(command)")
        }
        // Neither completion offers a command the table lacks.
        let bashCommands = try #require(
            bash.range(of: #"compgen -W ""#).map { bash[$0.upperBound...].prefix { $0 != "\"" } })
        #expect(bashCommands.split(separator: " ").map(String.init) == commands + ["--help", "--version"])
        let bashArms = bash.split(separator: "\n").filter { $0.hasPrefix("        ") && $0.contains(") options=") }
        #expect(bashArms.map { String($0.dropFirst(8).prefix { $0 != ")" }) } == commands)
        let zshCommands = zsh.split(separator: "\n").filter { $0.hasPrefix("    '") }.map {
            String($0.dropFirst(5).prefix { $0 != ":" })
        }
        #expect(zshCommands == commands)
        let zshArms = zsh.split(separator: "\n").filter {
            $0.hasPrefix("    ") && !$0.hasPrefix("     ") && $0.hasSuffix(")")
        }
        #expect(zshArms.map { String($0.dropFirst(4).dropLast()) } == commands)
        // A word the table lacks is refused, with the table's list.
        let unknown = try CLIRunner.run(["summarize", "--help"])
        #expect(
            unknown.status == 64 && unknown.stderr.contains("(commands: " + commands.joined(separator: ", ") + ")"),
            "\(unknown.stderr)")
    }

    @Test(
        "every command's manual page and both completion scripts name every option its --help names; man renders each page without a warning"
    )
    func manualAndCompletionsFollowTheTables() throws {
        let commands = try CLIRunner.run(["manual", "--commands"]).stdoutText.split(separator: "\n").map(String.init)
        #expect(commands == ["verify", "audit", "inspect", "serve", "bench", "apple", "jwks", "completion", "manual"])
        let bash = try CLIRunner.run(["completion", "bash"]).stdoutText
        let zsh = try CLIRunner.run(["completion", "zsh"]).stdoutText
        #expect(zsh.hasPrefix("#compdef jwtverify"))
        for command in ["verify", "audit", "inspect", "serve", "bench", "apple", "jwks"] {
            let options = try CLIRunner.run(["options", command]).stdoutText.split(separator: "\n").map(String.init)
            #expect(options.count > 2, "\(command)")
            let page = try CLIRunner.run(["manual", command]).stdoutText
            #expect(page.hasPrefix(".TH JWTVERIFY\\-\(command.uppercased()) 1"))
            let line = bash.split(separator: "\n").first { $0.hasPrefix("        \(command)) options=") } ?? ""
            for option in options {
                let escaped = option.replacingOccurrences(of: "-", with: "\\-")
                #expect(page.contains("\\fB\(escaped)\\fR"), "jwtverify-\(command)(1) lacks \(option)")
                #expect(
                    line.contains(" \(option) ") || line.contains("\"\(option) ") || line.contains(" \(option)\""),
                    "bash completion of \(command) lacks \(option)")
                #expect(zsh.contains("'\(option)["), "zsh completion lacks \(option)")
            }
            if let man = ExternalProgram.path("man") {
                let rendered = try CLIRunner.runProgram(
                    "/bin/sh",
                    [
                        "-c", #""$1" manual "$2" | MANWIDTH=80 "$3" -l -Tutf8 --warnings -E UTF-8 - 2>&1 >/dev/null"#,
                        "sh", CLIRunner.binary.path, command, man,
                    ])
                #expect(rendered.stdoutText == "", "man warns about jwtverify-\(command)(1): \(rendered.stdoutText)")
            }
        }
    }
}
