import CMallocTuning
import JWTVerify
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `jwtverify`: the command-line face of JWTVerify.
@main
enum JWTVerifyCommand {
    static let version = "0.1.0"

    static let help = """
        USAGE: jwtverify <command> [options]

        Verifies JSON Web Tokens (compact JWS: RS256, ES256 and more) against a key set,
        checking signature, issuer, audience, expiry and the Sign in with Apple nonce.

        COMMANDS:
          verify    Verify one token per input line; JSON Lines results on stdout.
          audit     Find tokens in logs, HAR files or dumps; report on each and on the lot.
          inspect   Decode a token (UNVERIFIED unless --jwks is given).
          serve     Answer token checks over HTTP: /auth for gateways, /verify,
                    /notifications for Apple's webhooks, /metrics.
          bench     Measure verification throughput against the raw OpenSSL limit.
          apple     Sign in with Apple's server side: 'apple client-secret', and Apple's
                    REST endpoints: 'apple exchange|refresh|revoke|transfer'.
          jwks      Describe key sets ('jwks show SRC...') or save one ('jwks fetch URL -o FILE').
          completion  Print a bash or zsh completion script ('completion bash').
          manual    Print a manual page in roff ('manual verify | man -l -').

        Run 'jwtverify <command> --help' for a command's options.
        Options: -h, --help (this text), --version.
        """

    /// The commands, for `--help` pointers and suggestions.
    static var commands: [String] { CommandCatalog.entries.map(\.name) }

    static func main() {
        signal(SIGPIPE, SIG_IGN)
        keepFreedMemory()
        let words = CommandLine.arguments.dropFirst()
        do {
            exit(try run(words).rawValue)
        } catch {
            StandardError.write("jwtverify: error: \(error.message)\n")
            if error.status == .usage {
                // Points at the command's own help only when the command exists.
                let command = words.first.flatMap { commands.contains($0) ? $0 + " " : nil } ?? ""
                StandardError.write("Run 'jwtverify \(command)--help' for usage.\n")
            }
            exit(error.status.rawValue)
        }
    }

    /// The known command nearest to `word` (at most two edits away), for "did you mean".
    static func suggestion(for word: String) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var row = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var previous = row[0]
                row[0] = i + 1
                for (j, y) in b.enumerated() {
                    let current = row[j + 1]
                    row[j + 1] = min(row[j + 1] + 1, row[j] + 1, previous + (x == y ? 0 : 1))
                    previous = current
                }
            }
            return row[b.count]
        }
        let scored = commands.map { ($0, distance(Array(word), Array($0))) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Batch work frees and reallocates megabyte buffers (line batches, output records) every few
    /// thousand tokens. glibc would hand each back to the kernel (`munmap`, heap trimming) and fault
    /// it in again: 73,000 page faults and 7% system time over 100,000 tokens. Keeping freed memory
    /// for reuse bounds the process at its peak working set instead.
    private static func keepFreedMemory() {
        _ = cmalloc_keep_freed_memory()
    }

    /// Prints a command's help when asked (`-h`/`--help`: status 0), or when a command that needs
    /// arguments has none (status 64); `nil` otherwise.
    private static func help(_ text: String, _ words: ArraySlice<String>, neededArguments: Bool) -> ExitStatus? {
        let bare = neededArguments && words.count == 1
        guard bare || words.dropFirst().contains(where: { $0 == "-h" || $0 == "--help" }) else { return nil }
        print(text)
        return bare ? .usage : .ok
    }

    /// Runs a parsed subcommand, or prints its help when it was asked for.
    private static func subcommand<Command>(
        _ command: Command, help: String, _ run: (Command) throws(CommandFailure) -> ExitStatus
    ) throws(CommandFailure) -> ExitStatus where Command: HelpRequesting {
        if command.helpRequested {
            print(help)
            return .ok
        }
        return try run(command)
    }

    /// The options a subcommand accepts, from the same tables its parser and help use.
    static func acceptedOptions(_ command: String) -> [String]? {
        switch command {
        case "verify": VerifyOptions.table.acceptedNames
        case "audit": AuditCommand.table.acceptedNames
        case "inspect": InspectCommand.table.acceptedNames
        case "bench": BenchOptions.table.acceptedNames
        case "serve": ServeOptions.table.acceptedNames
        case "jwks": JWKSCommand.table.acceptedNames
        case "apple": AppleCommand.table.acceptedNames
        default: nil
        }
    }

    static func run(_ words: ArraySlice<String>) throws(CommandFailure) -> ExitStatus {
        guard let command = words.first else {
            StandardError.write(help + "\n")
            return .usage
        }
        switch command {
        case "-h", "--help", "help":
            print(help)
            return .ok
        case "--version":
            print("jwtverify \(version)")
            print("signature engine: \(MultiBufferEngine.isLoaded ? MultiBufferEngine.description : "openssl; crypto_mb \(MultiBufferEngine.description)")")
            return .ok
        case "verify":
            let options = try VerifyOptions(parsing: words.dropFirst())
            if options.helpRequested {
                print(VerifyOptions.help)
                return .ok
            }
            return try VerifyCommand(options: options).run()
        case "audit":
            // The report's own subcommands: merge, reduce, render.
            switch words.dropFirst().first {
            case "merge"?: return try subcommand(AuditMergeCommand(parsing: words.dropFirst(2)), help: AuditMergeCommand.help) { command throws(CommandFailure) in try command.run() }
            case "reduce"?: return try subcommand(AuditReduceCommand(parsing: words.dropFirst(2)), help: AuditReduceCommand.help) { command throws(CommandFailure) in try command.run() }
            case "render"?: return try subcommand(AuditRenderCommand(parsing: words.dropFirst(2)), help: AuditRenderCommand.help) { command throws(CommandFailure) in try command.run() }
            default: break
            }
            if let status = help(AuditCommand.help, words, neededArguments: false) { return status }
            return try AuditCommand(parsing: words.dropFirst()).run()
        case "inspect":
            if let status = help(InspectCommand.help, words, neededArguments: false) { return status }
            return try InspectCommand(parsing: words.dropFirst()).run()
        case "manual", "completion":
            return try DocumentationCommand.run(command, words.dropFirst())
        case "options":
            // For the tests: every spelling a subcommand accepts, one per line.
            guard let names = words.dropFirst().first.flatMap(acceptedOptions) else { throw .usage("options needs a command name") }
            for name in names { print(name) }
            return .ok
        case "apple":
            if let status = help(AppleCommand.help, words, neededArguments: true) { return status }
            return try AppleCommand(parsing: words.dropFirst()).run()
        case "jwks":
            if let status = help(JWKSCommand.help, words, neededArguments: true) { return status }
            return try JWKSCommand(parsing: words.dropFirst()).run()
        case "serve":
            let options = try ServeOptions(parsing: words.dropFirst())
            if options.helpRequested {
                print(ServeOptions.help)
                return .ok
            }
            return try ServeCommand(options: options).run()
        case "bench":
            let options = try BenchOptions(parsing: words.dropFirst())
            if options.helpRequested {
                print(BenchOptions.help)
                return .ok
            }
            return try BenchCommand(options: options).run()
        default:
            throw .usage(
                "unknown command \"\(command)\" (commands: " + commands.joined(separator: ", ") + ")"
                    + (suggestion(for: command).map { "; did you mean \"\($0)\"?" } ?? ""))
        }
    }
}

/// A parsed command that may only have been asked for its help.
protocol HelpRequesting { var helpRequested: Bool { get } }
extension AuditMergeCommand: HelpRequesting {}
extension AuditReduceCommand: HelpRequesting {}
extension AuditRenderCommand: HelpRequesting {}
