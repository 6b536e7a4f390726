/// Every command as documentation shows it: its name, one line about it, its `--help` text, its
/// options and subcommands, all taken from the tables the parsers use. The manual pages and the
/// shell completions (`jwtverify manual`, `jwtverify completion`) come from here, so none can
/// drift from the binary.
struct CommandEntry: Sendable {
    let name: String
    let summary: String
    let help: String
    let options: [OptionDescription]
    let subcommands: [String]
}

enum CommandCatalog {
    /// The commands, in `--help`'s order.
    static let entries: [CommandEntry] = [
        CommandEntry(
            name: "verify", summary: "verify one token per input line, JSON Lines results on stdout", help: VerifyOptions.help,
            options: VerifyOptions.table.descriptions, subcommands: []),
        CommandEntry(
            name: "audit", summary: "find tokens in logs, HAR files or dumps and report on each and on the lot", help: AuditCommand.help,
            options: AuditCommand.table.descriptions, subcommands: ["merge", "render", "reduce"]),
        CommandEntry(
            name: "inspect", summary: "decode a token, and verify it when keys are given", help: InspectCommand.help,
            options: InspectCommand.table.descriptions, subcommands: []),
        CommandEntry(
            name: "serve", summary: "answer token checks over HTTP for gateways and backends", help: ServeOptions.help,
            options: ServeOptions.table.descriptions, subcommands: []),
        CommandEntry(
            name: "bench", summary: "measure verification throughput against the raw OpenSSL limit", help: BenchOptions.help,
            options: BenchOptions.table.descriptions, subcommands: []),
        CommandEntry(
            name: "apple", summary: "the Sign in with Apple server side: client secret and Apple's REST endpoints", help: AppleCommand.help,
            options: AppleCommand.table.descriptions, subcommands: AppleCommand.Subcommand.allCases.map(\.rawValue)),
        CommandEntry(
            name: "jwks", summary: "describe key sets or save one", help: JWKSCommand.help, options: JWKSCommand.table.descriptions,
            subcommands: ["show", "fetch"]),
        CommandEntry(
            name: "completion", summary: "print a shell completion script (bash or zsh)", help: DocumentationCommand.completionHelp, options: [],
            subcommands: ["bash", "zsh"]),
        CommandEntry(
            name: "manual", summary: "print a manual page in roff", help: DocumentationCommand.manualHelp, options: [],
            subcommands: ["verify", "audit", "inspect", "serve", "bench", "apple", "jwks", "completion"]),
    ]

    /// The entry named `name`.
    static func entry(_ name: String) -> CommandEntry? { entries.first { $0.name == name } }
}
