/// The App Store Server Notifications V2 subtypes Apple documents, as Apple's libraries type
/// `subtype`.
///
/// ``AppStoreClaims/subtype`` keeps the value as sent; ``AppStoreClaims/knownSubtype`` is this
/// type when the value is one of these, byte for byte, and `nil` for a subtype Apple added later:
/// such a notification still verifies, and passes as sent.
public enum AppStoreNotificationSubtype: String, Sendable, Hashable, CaseIterable {
    case initialBuy = "INITIAL_BUY"
    case resubscribe = "RESUBSCRIBE"
    case downgrade = "DOWNGRADE"
    case upgrade = "UPGRADE"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case voluntary = "VOLUNTARY"
    case billingRetry = "BILLING_RETRY"
    case priceIncrease = "PRICE_INCREASE"
    case gracePeriod = "GRACE_PERIOD"
    case pending = "PENDING"
    case accepted = "ACCEPTED"
    case billingRecovery = "BILLING_RECOVERY"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    case summary = "SUMMARY"
    case failure = "FAILURE"
    /// An external purchase token the developer did not report (`EXTERNAL_PURCHASE_TOKEN`).
    case unreported = "UNREPORTED"

    /// The subtype whose raw value is exactly `text`'s bytes (never Unicode equivalence).
    init?(exactly text: String) {
        guard let known = Self.allCases.first(where: { exactlyEquals($0.rawValue, text) }) else { return nil }
        self = known
    }
}
