/// The credentials every `jwtverify apple` subcommand takes: the team, the `.p8` key and its ID,
/// and the client the secret is for.
struct AppleCredentialOptions: Sendable {
    var teamID = ""
    var keyID = ""
    var clientID = ""
    var keyFile = ""

    /// `--team-id`, `--key-id`, `--client-id`, `--key`.
    static let options: [Option<AppleCredentialOptions>] = [
        .value("--team-id", placeholder: "ID", help: "Your Apple Developer team ID (the secret's iss).") {
            $0.teamID = $1
        },
        .value("--key-id", placeholder: "ID", help: "The .p8 key's ID (the header's kid).") { $0.keyID = $1 },
        .value(
            "--client-id", placeholder: "ID",
            help: "The Services ID or bundle ID (the secret's sub; the identity\ntokens' aud)."
        ) { $0.clientID = $1 },
        .value("--key", placeholder: "FILE.p8", help: "The private key file, AuthKey_<key ID>.p8.") { $0.keyFile = $1 },
    ]

    /// Refuses credentials with a part missing.
    func validate() throws(CommandFailure) {
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty, !keyFile.isEmpty else {
            throw .usage("--team-id, --key-id, --client-id and --key are required")
        }
    }
}
