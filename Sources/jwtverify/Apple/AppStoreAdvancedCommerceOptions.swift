import JWTVerify

/// `jwtverify apple advanced-commerce`'s options: the key, and the in-app request's JSON file.
struct AppStoreAdvancedCommerceOptions: AppStoreSignerOptions {
    static let name = "advanced-commerce"
    var key = AppStoreKeyOptions()
    var offer = AppStoreOfferOptions()
    var requestFile = ""

    static let table = OptionTable<AppStoreAdvancedCommerceOptions>(
        AppStoreKeyOptions.options.map { $0.lifted(\.key) },
        AppStoreOfferOptions.options.filter { $0.names == ["--nonce"] }.map { $0.lifted(\.offer) },
        [
            .value(
                "--request", placeholder: "FILE.json",
                help: "advanced-commerce: the in-app request, one JSON object (signed\nas the file holds it)."
            ) { $0.requestFile = $1 }
        ])

    func validate() throws(CommandFailure) {
        guard !requestFile.isEmpty else { throw .usage("apple advanced-commerce needs --request FILE.json") }
    }

    func output(privateKeyPEM: [UInt8]) throws(CommandFailure) -> String {
        let request = try InputFile.readAll(requestFile, limit: 1 << 20)
        return try signed { () throws(AppleClientSecret.Failure) in
            try AdvancedCommerceInAppSignature.make(
                issuerID: key.issuerID, keyID: key.keyID, bundleID: key.bundleID, privateKeyPEM: privateKeyPEM,
                request: request, nonce: offer.nonce)
        }
    }
}
