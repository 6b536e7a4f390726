import JWTVerify

/// The options value of one App Store signing subcommand (`store-token`, `promotional-offer`,
/// `intro-offer-eligibility`, `advanced-commerce`): the key, and what it signs with it.
protocol AppStoreSignerOptions: AppleParsedOptions {
    /// The issuer, key and bundle.
    var key: AppStoreKeyOptions { get }
    /// What the subcommand prints: the JWT, or the V1 promotional offer's JSON object.
    func output(privateKeyPEM: [UInt8]) throws(AppleClientSecret.Failure) -> String
}

extension AppStoreSignerOptions {
    /// Refuses a key with a part missing.
    func validateShared() throws(CommandFailure) { try key.validate() }

    /// Reads the key file and prints the output: 0; 66 when the file is missing, 65 when the key
    /// is unusable.
    func run() throws(CommandFailure) -> ExitStatus {
        let pem = try InputFile.readAll(key.keyFile, limit: 1 << 16)
        do {
            print(try output(privateKeyPEM: pem))
        } catch {
            throw CommandFailure(status: .dataError, message: "\(error)")
        }
        return .ok
    }
}
