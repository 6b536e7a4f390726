import JWTVerify
import JWTVerifyTooling

/// `jwtverify apple client-secret`: makes the ES256 client secret Apple's REST endpoints require.
struct AppleCommand {
    static let help = """
        USAGE: jwtverify apple client-secret --team-id ID --key-id ID --client-id ID --key FILE.p8
                                             [--lifetime SECONDS]

        Prints a client secret for Apple's token validation and revocation endpoints (needed, for
        example, to revoke tokens when a user deletes their account): an ES256 JWT signed with the
        .p8 key, with iss = team ID, sub = client ID, aud = https://appleid.apple.com, iat = now and
        exp = now + lifetime (default 86400, at most 15777000).

        OPTIONS:
        \(table.help)

        EXIT STATUS: 0 printed, 64 usage, 65 the key or a value is unusable, 66 key file missing.
        """

    var teamID = ""
    var keyID = ""
    var clientID = ""
    var keyFile = ""
    var lifetime = 86_400.0

    static let table = OptionTable<AppleCommand>([
        .value("--team-id", placeholder: "ID", help: "Your Apple Developer team ID (the secret's iss).") { $0.teamID = $1 },
        .value("--key-id", placeholder: "ID", help: "The .p8 key's ID (the header's kid).") { $0.keyID = $1 },
        .value("--client-id", placeholder: "ID", help: "The Services ID or bundle ID (the secret's sub).") { $0.clientID = $1 },
        .value("--key", placeholder: "FILE.p8", help: "The private key file, AuthKey_<key ID>.p8.") { $0.keyFile = $1 },
        .value("--lifetime", placeholder: "SECONDS", help: "Seconds until exp (default 86400, at most 15777000).") {
            options, value, name throws(CommandFailure) in
            guard let seconds = Double(value), seconds >= 1, seconds <= AppleClientSecret.maximumLifetime else {
                throw .usage("\(name) takes 1 to \(Int(AppleClientSecret.maximumLifetime)) seconds")
            }
            options.lifetime = seconds
        },
    ])

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        guard words.first == "client-secret" else { throw .usage("apple needs a subcommand: client-secret") }
        _ = try Self.table.parse(words.dropFirst(), into: &self) { _, operand throws(CommandFailure) in
            throw .usage("unexpected argument \"\(operand)\"")
        }
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty, !keyFile.isEmpty else {
            throw .usage("--team-id, --key-id, --client-id and --key are required")
        }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        let input = try InputFile.openAll([keyFile])[0]
        defer { input.close() }
        let reader = LineReader(fd: input.fd, lineLimit: 1 << 16)
        var pem: [UInt8] = []
        do {
            while let batch = try reader.nextBatch(maxLines: 4096, maxBytes: 1 << 20) {
                for case .text(let range) in batch.lines { pem += batch.storage[range] + [0x0A] }
            }
        } catch {
            throw CommandFailure(status: .ioError, message: "cannot read \(keyFile)")
        }
        do {
            let secret = try AppleClientSecret.make(
                teamID: teamID, keyID: keyID, clientID: clientID, privateKeyPEM: pem, lifetime: lifetime)
            print(secret)
        } catch {
            throw CommandFailure(status: .dataError, message: "\(error)")
        }
        return .ok
    }
}
