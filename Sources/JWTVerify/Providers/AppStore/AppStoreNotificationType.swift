/// The App Store Server Notifications V2 types Apple documents (through version 2.19), as
/// Apple's libraries type `notificationType`.
///
/// ``AppStoreClaims/notificationType`` keeps the value as sent; ``AppStoreClaims/knownNotificationType``
/// is this type when the value is one of these, byte for byte, and `nil` for a type Apple added
/// later: such a notification still verifies, and passes as sent.
public enum AppStoreNotificationType: String, Sendable, Hashable, CaseIterable {
    case subscribed = "SUBSCRIBED"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case offerRedeemed = "OFFER_REDEEMED"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case renewalExtended = "RENEWAL_EXTENDED"
    case revoke = "REVOKE"
    case test = "TEST"
    case renewalExtension = "RENEWAL_EXTENSION"
    case refundReversed = "REFUND_REVERSED"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    /// A one-time purchase (consumable, non-consumable, non-renewing subscription): 2.17.
    case oneTimeCharge = "ONE_TIME_CHARGE"
    /// The customer withdrew consent for the app's data (its `appData` carries a signed
    /// AppTransaction): 2.19.
    case rescindConsent = "RESCIND_CONSENT"
    /// Advanced Commerce: a subscription's metadata changed.
    case metadataUpdate = "METADATA_UPDATE"
    /// Advanced Commerce: a subscription migrated.
    case migration = "MIGRATION"
    /// Advanced Commerce: a subscription's price changed.
    case priceChange = "PRICE_CHANGE"

    /// The type whose raw value is exactly `text`'s bytes (never Unicode equivalence).
    init?(exactly text: String) {
        guard let known = Self.allCases.first(where: { exactlyEquals($0.rawValue, text) }) else { return nil }
        self = known
    }
}
