/// One command of `jwtverify`, as everything that names commands sees it: its name, one line
/// about it, its `--help` text, its options and subcommands (from the tables its parser uses),
/// and the function that runs it. Dispatch, the top-level help, the manual pages and the shell
/// completions all come from ``CommandCatalog/entries``, so none can leave a command out.
struct CommandEntry: Sendable {
    /// What runs the command, given the words after its name.
    typealias Entry = @Sendable (ArraySlice<String>) throws(CommandFailure) -> ExitStatus

    /// The word that selects the command.
    let name: String
    /// One line about it, starting in lower case, without a final period (the manual page's NAME).
    let summary: String
    /// Its `--help` text.
    var help: String { makeHelp() }
    /// Its options as documentation shows them.
    var options: [OptionDescription] { makeOptions().descriptions }
    /// Every option spelling its parser accepts (`jwtverify options COMMAND`, for the tests).
    var acceptedOptions: [String] { makeOptions().accepted }
    /// The words that may follow its name (subcommands, or the operands completed like them).
    let subcommands: [String]
    /// Runs it.
    let run: Entry

    // The help text and the option lists are built when asked for, not with the catalog: a
    // command that runs never builds the others' (nor, without --help, its own).
    private let makeHelp: @Sendable () -> String
    private let makeOptions: @Sendable () -> (descriptions: [OptionDescription], accepted: [String])

    /// A command whose options are `table`.
    init<Options>(
        _ name: String, summary: String, help: @autoclosure @escaping @Sendable () -> String,
        options table: @autoclosure @escaping @Sendable () -> OptionTable<Options>,
        subcommands: [String] = [], run: @escaping Entry
    ) {
        self.init(
            name, summary: summary, help: help, options: { (table().descriptions, table().acceptedNames) },
            subcommands: subcommands, run: run)
    }

    /// A command whose subcommands each have their own table: `options` lists them all, each once.
    init(
        _ name: String, summary: String, help: @autoclosure @escaping @Sendable () -> String,
        options: @autoclosure @escaping @Sendable () -> [OptionDescription], subcommands: [String],
        run: @escaping Entry
    ) {
        self.init(
            name, summary: summary, help: help, options: { (options(), options().flatMap(\.names)) },
            subcommands: subcommands, run: run)
    }

    /// A command with no options table: its words are subcommands or operands.
    init(
        _ name: String, summary: String, help: @autoclosure @escaping @Sendable () -> String, subcommands: [String],
        run: @escaping Entry
    ) {
        self.init(name, summary: summary, help: help, options: { ([], []) }, subcommands: subcommands, run: run)
    }

    private init(
        _ name: String, summary: String, help: @escaping @Sendable () -> String,
        options: @escaping @Sendable () -> (descriptions: [OptionDescription], accepted: [String]),
        subcommands: [String], run: @escaping Entry
    ) {
        self.name = name
        self.summary = summary
        self.makeHelp = help
        self.makeOptions = options
        self.subcommands = subcommands
        self.run = run
    }

    /// Whether `words` ask for help (`-h` or `--help` anywhere).
    static func asksForHelp(_ words: ArraySlice<String>) -> Bool {
        words.contains { $0 == "-h" || $0 == "--help" }
    }

    /// Prints `help` when asked (`-h`/`--help`: status 0), or when a command that needs arguments
    /// has none (status 64); `nil` otherwise. `words` are those after the command's name.
    static func help(_ help: String, _ words: ArraySlice<String>, neededArguments: Bool) -> ExitStatus? {
        let bare = neededArguments && words.isEmpty
        guard bare || asksForHelp(words) else { return nil }
        print(help)
        return bare ? .usage : .ok
    }
}
