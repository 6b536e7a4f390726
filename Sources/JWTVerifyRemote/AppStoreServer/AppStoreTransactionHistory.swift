/// A customer's in-app purchase history (Get Transaction History, `GET /inApps/v2/history/{id}`),
/// every page fetched, every transaction verified.
public struct AppStoreTransactionHistory: Sendable {
    /// The transactions of every page, in Apple's order.
    public let transactions: [AppStoreSignedItem]
    /// The last page's `revision`: the token to ask for what is new since
    /// (``AppStoreTransactionHistoryQuery/revision``).
    public let revision: String?
    /// The answer's `bundleId`, `appAppleId` and `environment`.
    public let bundleID: String?
    public let appAppleID: Int64?
    public let environment: String?
    /// Pages fetched.
    public let pages: Int
}

/// What Get Transaction History asks for: the filters Apple takes as query parameters, and the
/// revision to start from (each following page is asked with the revision its predecessor gave).
public struct AppStoreTransactionHistoryQuery: Sendable, Hashable {
    /// Start from this revision (the ``AppStoreTransactionHistory/revision`` of an earlier call).
    public var revision: String?
    /// `startDate` and `endDate`, in milliseconds since the epoch.
    public var startDate: Int64?
    public var endDate: Int64?
    /// `productId`, repeatable.
    public var productIDs: [String] = []
    /// `productType`: `AUTO_RENEWABLE`, `NON_RENEWABLE`, `CONSUMABLE`, `NON_CONSUMABLE`.
    public var productTypes: [String] = []
    /// `sort`: `ASCENDING` or `DESCENDING`.
    public var sort: String?
    /// `subscriptionGroupIdentifier`, repeatable.
    public var subscriptionGroupIdentifiers: [String] = []
    /// `inAppOwnershipType`: `FAMILY_SHARED` or `PURCHASED`.
    public var inAppOwnershipType: String?
    /// `revoked`: only revoked (true) or only unrevoked (false) transactions.
    public var revoked: Bool?

    /// No filter: the whole history.
    public init() {}

    /// The query parameters, in a fixed order, `revision` first when given.
    func parameters(revision: String?) -> [(String, String)] {
        var items: [(String, String)] = []
        if let revision { items.append(("revision", revision)) }
        if let startDate { items.append(("startDate", String(startDate))) }
        if let endDate { items.append(("endDate", String(endDate))) }
        items += productIDs.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0) }
        if let sort { items.append(("sort", sort)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}
