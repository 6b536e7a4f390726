/// The options value of one `jwtverify apple` subcommand: its own table (the credentials, the
/// REST options when it calls Apple, and those only it takes), parsed into it, then checked.
protocol AppleSubcommandOptions: Sendable {
    /// The subcommand's name, for messages.
    static var name: String { get }
    /// Every option it takes.
    static var table: OptionTable<Self> { get }
    /// The defaults, before parsing.
    init()
    /// Refuses what the subcommand needs and was not given (the credentials are checked before).
    func validate() throws(CommandFailure)
    /// The team, key and client.
    var credentials: AppleCredentialOptions { get }
}

extension AppleSubcommandOptions {
    /// Parses the words after the subcommand's name: an option of another subcommand is named as
    /// such (`apple refresh takes no --code`); an operand is refused.
    init(parsing words: ArraySlice<String>, siblings: [OptionDescription]) throws(CommandFailure) {
        self.init()
        let unknown = { (name: String) -> CommandFailure in
            siblings.contains { $0.names.contains(name) }
                ? .usage("apple \(Self.name) takes no \(name)") : .usage("unknown option \(name)")
        }
        _ = try Self.table.parse(words, into: &self, unknown: unknown) { _, operand throws(CommandFailure) in
            throw .usage("unexpected argument \"\(operand)\"")
        }
        try credentials.validate()
        try validate()
    }
}
