/// The commands of `jwtverify`, in `--help`'s order: the one list that dispatch
/// (``JWTVerifyCommand/run(_:)``), the top-level help (``JWTVerifyCommand/help``), the manual pages
/// and the shell completions (``DocumentationCommand``) read.
enum CommandCatalog {
    /// Every command; `manual` last, taking any of the others.
    static let entries: [CommandEntry] = {
        let commands = [
            CommandEntry(
                "verify", summary: "verify one token per input line, JSON Lines results on stdout",
                help: VerifyOptions.help, options: VerifyOptions.table, run: verify),
            CommandEntry(
                "audit", summary: "find tokens in logs, HAR files or dumps and report on each and on the lot",
                help: AuditOptions.help, options: AuditOptions.table, subcommands: ["merge", "render", "reduce"],
                run: audit),
            CommandEntry(
                "inspect", summary: "decode a token and, with --jwks or --profile, give verify's verdict on it",
                help: InspectCommand.help, options: InspectCommand.table, run: inspect),
            CommandEntry(
                "serve", summary: "answer token checks over HTTP for gateways and backends",
                help: ServeOptions.help, options: ServeOptions.table, run: serve),
            CommandEntry(
                "bench", summary: "measure verification throughput against the raw OpenSSL limit",
                help: BenchOptions.help, options: BenchOptions.table, run: bench),
            CommandEntry(
                "apple", summary: "Sign in with Apple's server side: client secret and Apple's REST endpoints",
                help: AppleCommand.help, options: AppleCommand.options,
                subcommands: AppleCommand.subcommands, run: apple),
            CommandEntry(
                "jwks", summary: "describe key sets or save one", help: JWKSCommand.help, options: JWKSCommand.table,
                subcommands: ["show", "fetch"], run: jwks),
            CommandEntry(
                "completion", summary: "print a shell completion script (bash or zsh)",
                help: DocumentationCommand.completionHelp, subcommands: ["bash", "zsh"],
                run: DocumentationCommand.completion),
        ]
        let manual = CommandEntry(
            "manual", summary: "print a manual page in roff", help: DocumentationCommand.manualHelp,
            subcommands: commands.map(\.name), run: DocumentationCommand.manual)
        return commands + [manual]
    }()

    /// The entry named `name`.
    static func entry(_ name: String) -> CommandEntry? { entries.first { Array($0.name.utf8) == Array(name.utf8) } }

    // MARK: Entry functions (the words after the command's name)

    private static func verify(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        let options = try VerifyOptions(parsing: words)
        if options.helpRequested {
            print(VerifyOptions.help)
            return .ok
        }
        return try VerifyCommand(options: options).run()
    }

    /// `audit`, or one of the report's own subcommands: merge, reduce, render.
    private static func audit(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        let rest = words.dropFirst()
        switch words.first {
        case "merge"?:
            let command = try AuditMergeCommand(parsing: rest)
            if command.helpRequested { print(AuditMergeCommand.help) }
            return command.helpRequested ? .ok : try command.run()
        case "reduce"?:
            let command = try AuditReduceCommand(parsing: rest)
            if command.helpRequested { print(AuditReduceCommand.help) }
            return command.helpRequested ? .ok : try command.run()
        case "render"?:
            let command = try AuditRenderCommand(parsing: rest)
            if command.helpRequested { print(AuditRenderCommand.help) }
            return command.helpRequested ? .ok : try command.run()
        default:
            if let status = CommandEntry.help(AuditOptions.help, words, neededArguments: false) { return status }
            return try AuditCommand(options: AuditOptions(parsing: words)).run()
        }
    }

    private static func inspect(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        if let status = CommandEntry.help(InspectCommand.help, words, neededArguments: false) { return status }
        return try InspectCommand(parsing: words).run()
    }

    private static func serve(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        let options = try ServeOptions(parsing: words)
        if options.helpRequested {
            print(ServeOptions.help)
            return .ok
        }
        return try ServeCommand(options: options).run()
    }

    private static func bench(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        let options = try BenchOptions(parsing: words)
        if options.helpRequested {
            print(BenchOptions.help)
            return .ok
        }
        return try BenchCommand(options: options).run()
    }

    private static func apple(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        if let status = CommandEntry.help(AppleCommand.help, words, neededArguments: true) { return status }
        return try AppleCommand(parsing: words).run()
    }

    private static func jwks(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        if let status = CommandEntry.help(JWKSCommand.help, words, neededArguments: true) { return status }
        return try JWKSCommand(parsing: words).run()
    }
}
