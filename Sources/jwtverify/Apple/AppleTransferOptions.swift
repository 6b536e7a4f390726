/// `jwtverify apple transfer`'s options (TN3159): `--user` and `--target` for the transferring
/// team, or `--transfer-sub` for the recipient.
struct AppleTransferOptions: AppleSubcommandOptions {
    static let name = "transfer"
    var credentials = AppleCredentialOptions()
    var endpoint = AppleEndpointOptions()
    var user: String?
    var target: String?
    var transferSubject: String?

    static let table = OptionTable<AppleTransferOptions>(
        AppleCredentialOptions.options.map { $0.lifted(\.credentials) },
        AppleEndpointOptions.options.map { $0.lifted(\.endpoint) },
        [
            .value("--user", placeholder: "SUB", help: "transfer: your team's sub of the user to transfer.") {
                $0.user = $1
            },
            .value("--target", placeholder: "TEAM_ID", help: "transfer: the recipient team.") { $0.target = $1 },
            .value(
                "--transfer-sub", placeholder: "ID",
                help: "transfer: a transfer identifier to exchange (recipient team)."
            ) { $0.transferSubject = $1 },
        ])

    func validate() throws(CommandFailure) {
        let forward = user != nil || target != nil
        guard forward != (transferSubject != nil) else {
            throw .usage("apple transfer takes --user SUB --target TEAM_ID, or --transfer-sub ID")
        }
        if forward, user?.isEmpty != false || target?.isEmpty != false {
            throw .usage("apple transfer needs both --user and --target")
        }
    }
}
