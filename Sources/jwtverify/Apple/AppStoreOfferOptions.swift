import JWTVerify

/// The options the App Store offer and request signers share: the product, the customer's
/// transaction and the nonce, declared once so `--help` has one line for each.
struct AppStoreOfferOptions: Sendable {
    var productID = ""
    var transactionID: String?
    var nonce: String?

    /// `--nonce`'s help, for `exchange` and the signers (the help lists it once).
    static let nonceHelp =
        "exchange: the raw nonce the sign-in started with. promotional-offer,\n"
        + "intro-offer-eligibility, advanced-commerce: the signature's nonce, a\nUUID (random by default)."

    /// `--product-id`, `--transaction-id`, `--nonce`.
    static let options: [Option<AppStoreOfferOptions>] = [
        .value("--product-id", placeholder: "ID", help: "promotional-offer, intro-offer-eligibility: the product ID.") {
            $0.productID = $1
        },
        .value(
            "--transaction-id", placeholder: "ID",
            help: "promotional-offer (version 2, optional), intro-offer-eligibility:\n"
                + "any transaction ID of the customer's, or their appTransactionId."
        ) { $0.transactionID = $1 },
        .value("--nonce", placeholder: "UUID", help: nonceHelp) { options, value, name throws(CommandFailure) in
            guard AppStoreNonce.lowercasedUUID(value) != nil else {
                throw .usage("\(name) takes a UUID (8-4-4-4-12 hexadecimal digits)")
            }
            options.nonce = value
        },
    ]

    /// Refuses an offer signer without `--product-id`.
    func requireProduct(_ subcommand: String) throws(CommandFailure) {
        guard !productID.isEmpty else { throw .usage("apple \(subcommand) needs --product-id") }
    }
}
