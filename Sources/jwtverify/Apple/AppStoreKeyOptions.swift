/// The key every App Store signing subcommand of `jwtverify apple` takes: the issuer, the In-App
/// Purchase `.p8` key and its ID, and the app's bundle ID.
struct AppStoreKeyOptions: Sendable {
    var issuerID = ""
    var keyID = ""
    var bundleID = ""
    var keyFile = ""

    /// `--issuer-id`, `--key-id`, `--key`, `--bundle-id`.
    static let options: [Option<AppStoreKeyOptions>] = [
        .value(
            "--issuer-id", placeholder: "ID",
            help: "App Store: your issuer ID, from App Store Connect's Keys page\n(the token's iss)."
        ) { $0.issuerID = $1 },
        .value("--key-id", placeholder: "ID", help: "The .p8 key's ID (the header's kid).") { $0.keyID = $1 },
        .value("--key", placeholder: "FILE.p8", help: "The private key file, AuthKey_<key ID>.p8.") { $0.keyFile = $1 },
        .value("--bundle-id", placeholder: "ID", help: "App Store: your app's bundle ID (the token's bid).") {
            $0.bundleID = $1
        },
    ]

    /// Refuses a key with a part missing.
    func validate() throws(CommandFailure) {
        guard !issuerID.isEmpty, !keyID.isEmpty, !bundleID.isEmpty, !keyFile.isEmpty else {
            throw .usage("--issuer-id, --key-id, --key and --bundle-id are required")
        }
    }
}
