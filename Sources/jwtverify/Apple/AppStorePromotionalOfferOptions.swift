import JWTVerify

/// `jwtverify apple promotional-offer`'s options: the key, the version, the product and offer,
/// and (version 2) the transaction or (version 1) the app account token and the timestamp.
struct AppStorePromotionalOfferOptions: AppStoreSignerOptions {
    static let name = "promotional-offer"
    var key = AppStoreKeyOptions()
    var offer = AppStoreOfferOptions()
    var version = 0
    var offerIdentifier = ""
    var appAccountToken: String?
    var timestamp: Int64?

    static let table = OptionTable<AppStorePromotionalOfferOptions>(
        AppStoreKeyOptions.options.map { $0.lifted(\.key) },
        AppStoreOfferOptions.options.map { $0.lifted(\.offer) },
        [
            .value(
                "--version", placeholder: "2|1",
                help: "promotional-offer: 2, the JWS StoreKit takes now, or 1, the\noriginal signature."
            ) { options, value, name throws(CommandFailure) in
                switch value {
                case "2": options.version = 2
                case "1": options.version = 1
                default: throw .usage("\(name) takes 2 or 1")
                }
            },
            .value("--offer-id", placeholder: "ID", help: "promotional-offer: the offer's ID in App Store Connect.") {
                $0.offerIdentifier = $1
            },
            .value(
                "--app-account-token", placeholder: "TOKEN",
                help: "promotional-offer --version 1: the purchase's appAccountToken\n(lowercased; empty by default)."
            ) { $0.appAccountToken = $1 },
            .value(
                "--timestamp", placeholder: "MS",
                help:
                    "promotional-offer --version 1: the time signed, in milliseconds\nsince the epoch (now by default)."
            ) { options, value, name throws(CommandFailure) in
                guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                    let milliseconds = Int64(value)
                else { throw .usage("\(name) takes milliseconds since the epoch") }
                options.timestamp = milliseconds
            },
        ])

    /// Version 1 signs no issuer: `--issuer-id` is not needed for it.
    func validateShared() throws(CommandFailure) {
        guard version == 1 else { return try key.validate() }
        guard !key.keyID.isEmpty, !key.bundleID.isEmpty, !key.keyFile.isEmpty else {
            throw .usage("--key-id, --key and --bundle-id are required")
        }
    }

    func validate() throws(CommandFailure) {
        guard version != 0 else { throw .usage("apple promotional-offer needs --version 2 or --version 1") }
        try offer.requireProduct(Self.name)
        guard !offerIdentifier.isEmpty else { throw .usage("apple promotional-offer needs --offer-id") }
        if version == 2, appAccountToken != nil || timestamp != nil {
            throw .usage("--app-account-token and --timestamp are for --version 1")
        }
        if version == 1, offer.transactionID != nil { throw .usage("--transaction-id is for --version 2") }
    }

    func output(privateKeyPEM: [UInt8]) throws(CommandFailure) -> String {
        if version == 2 {
            return try signed { () throws(AppleClientSecret.Failure) in
                try PromotionalOfferV2Signature.make(
                    issuerID: key.issuerID, keyID: key.keyID, bundleID: key.bundleID, privateKeyPEM: privateKeyPEM,
                    productID: offer.productID, offerIdentifier: offerIdentifier, transactionID: offer.transactionID,
                    nonce: offer.nonce)
            }
        }
        let made = try signed { () throws(AppleClientSecret.Failure) in
            if let timestamp {
                return try PromotionalOfferV1Signature.make(
                    keyID: key.keyID, bundleID: key.bundleID, privateKeyPEM: privateKeyPEM, productID: offer.productID,
                    offerIdentifier: offerIdentifier, applicationUsername: appAccountToken ?? "", nonce: offer.nonce,
                    timestamp: timestamp)
            }
            return try PromotionalOfferV1Signature.make(
                keyID: key.keyID, bundleID: key.bundleID, privateKeyPEM: privateKeyPEM, productID: offer.productID,
                offerIdentifier: offerIdentifier, applicationUsername: appAccountToken ?? "", nonce: offer.nonce)
        }
        var out = OutputText()
        out.beginObject()
        out.key("signature")
        out.string(made.signature)
        out.key("nonce")
        out.string(made.nonce)
        out.key("timestamp")
        out.integer(Int(made.timestamp))
        out.key("keyIdentifier")
        out.string(made.keyIdentifier)
        out.endObject()
        return out.string
    }
}
