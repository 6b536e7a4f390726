/// What an order ID from a customer's App Store receipt email holds (Look Up Order ID,
/// `GET /inApps/v1/lookup/{orderId}`), every transaction verified.
public struct AppStoreOrderLookup: Sendable {
    /// `status`: 0 the order ID is valid, 1 it is not (then no transactions).
    public let status: Int64
    /// `signedTransactions[]`, verified.
    public let transactions: [AppStoreSignedItem]

    /// Whether Apple knows the order ID (`status` 0).
    public var isValid: Bool { status == 0 }
}
