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

    /// The top-level help: what the tool does, then each command of ``CommandCatalog`` with its
    /// summary.
    static let help: String = {
        var text = """
            USAGE: jwtverify <command> [options]

            Verifies JSON Web Tokens (compact JWS: RS256, ES256 and more) against a key set,
            checking signature, issuer, audience, expiry and the Sign in with Apple nonce.

            COMMANDS:

            """
        let width = CommandCatalog.entries.map(\.name.count).max() ?? 0
        for entry in CommandCatalog.entries {
            let summary = entry.summary.prefix(1).uppercased() + entry.summary.dropFirst() + "."
            let lines = HelpText.wrapped(
                summary.split(separator: " ").map(String.init), separator: " ", width: 86 - width)
            let indent = String(repeating: " ", count: width + 4)
            let name = entry.name + String(repeating: " ", count: width - entry.name.count)
            text += "  \(name)  " + lines.split(separator: "\n").joined(separator: "\n" + indent) + "\n"
        }
        text += """

            Run 'jwtverify <command> --help' for a command's options.
            Options: -h, --help (this text), --version.
            """
        return text
    }()

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

    /// The options a subcommand accepts, from the same tables its parser and help use.
    static func acceptedOptions(_ command: String) -> [String]? { CommandCatalog.entry(command)?.acceptedOptions }

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
            print(
                "signature engine: \(MultiBufferEngine.isLoaded ? MultiBufferEngine.description : "openssl; crypto_mb \(MultiBufferEngine.description)")"
            )
            return .ok
        case "options":
            // For the tests: every spelling a subcommand accepts, one per line.
            guard let names = words.dropFirst().first.flatMap(acceptedOptions) else {
                throw .usage("options needs a command name")
            }
            for name in names { print(name) }
            return .ok
        default:
            if let entry = CommandCatalog.entry(command) { return try entry.run(words.dropFirst()) }
            throw .usage(
                "unknown command \"\(command)\" (commands: " + commands.joined(separator: ", ") + ")"
                    + (suggestion(for: command).map { "; did you mean \"\($0)\"?" } ?? ""))
        }
    }
}
