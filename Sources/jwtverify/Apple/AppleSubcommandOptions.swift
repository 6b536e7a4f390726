/// The options value of one `jwtverify apple` subcommand: its own table, parsed into it, then
/// checked (what every subcommand of its kind needs first, then what it needs itself).
protocol AppleParsedOptions: Sendable {
    /// The subcommand's name, for messages.
    static var name: String { get }
    /// Every option it takes.
    static var table: OptionTable<Self> { get }
    /// The defaults, before parsing.
    init()
    /// Refuses what every subcommand of its kind needs and was not given (the credentials or key).
    func validateShared() throws(CommandFailure)
    /// Refuses what the subcommand needs and was not given (the shared options are checked before).
    func validate() throws(CommandFailure)
}

/// The options value of one Sign in with Apple subcommand: the credentials, the REST options when
/// it calls Apple, and those only it takes.
protocol AppleSubcommandOptions: AppleParsedOptions {
    /// The team, key and client.
    var credentials: AppleCredentialOptions { get }
}

extension AppleSubcommandOptions {
    /// Refuses credentials with a part missing.
    func validateShared() throws(CommandFailure) { try credentials.validate() }
}

extension AppleParsedOptions {
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
        try validateShared()
        try validate()
    }
}
