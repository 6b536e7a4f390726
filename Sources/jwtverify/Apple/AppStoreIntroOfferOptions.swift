import JWTVerify

/// `jwtverify apple intro-offer-eligibility`'s options: the key, the product, the customer's
/// transaction and whether they may have the introductory offer.
struct AppStoreIntroOfferOptions: AppStoreSignerOptions {
    static let name = "intro-offer-eligibility"
    var key = AppStoreKeyOptions()
    var offer = AppStoreOfferOptions()
    var allow: Bool?

    static let table = OptionTable<AppStoreIntroOfferOptions>(
        AppStoreKeyOptions.options.map { $0.lifted(\.key) },
        AppStoreOfferOptions.options.map { $0.lifted(\.offer) },
        [
            .value(
                "--allow", placeholder: "true|false",
                help: "intro-offer-eligibility: whether the customer may have the\nintroductory offer."
            ) { options, value, name throws(CommandFailure) in
                switch value {
                case "true": options.allow = true
                case "false": options.allow = false
                default: throw .usage("\(name) takes true or false")
                }
            }
        ])

    func validate() throws(CommandFailure) {
        try offer.requireProduct(Self.name)
        guard allow != nil else { throw .usage("apple intro-offer-eligibility needs --allow true|false") }
        guard offer.transactionID != nil else { throw .usage("apple intro-offer-eligibility needs --transaction-id") }
    }

    func output(privateKeyPEM: [UInt8]) throws(CommandFailure) -> String {
        try signed { () throws(AppleClientSecret.Failure) in
            try IntroductoryOfferEligibilitySignature.make(
                issuerID: key.issuerID, keyID: key.keyID, bundleID: key.bundleID, privateKeyPEM: privateKeyPEM,
                productID: offer.productID, allowIntroductoryOffer: allow ?? false,
                transactionID: offer.transactionID ?? "", nonce: offer.nonce)
        }
    }
}
