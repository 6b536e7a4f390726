/// The statuses of every auto-renewable subscription of a customer (Get All Subscription
/// Statuses, `GET /inApps/v1/subscriptions/{id}`), each signed transaction and renewal info verified.
public struct AppStoreSubscriptionStatuses: Sendable {
    /// One subscription group (`data[]`).
    public struct Group: Sendable {
        /// `subscriptionGroupIdentifier`.
        public let subscriptionGroupIdentifier: String?
        /// `lastTransactions[]`: the latest transaction of each subscription of the group.
        public let lastTransactions: [LastTransaction]
    }

    /// The latest state of one subscription (`lastTransactions[]`).
    public struct LastTransaction: Sendable {
        /// `status`: 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
        public let status: Int64?
        /// `originalTransactionId`.
        public let originalTransactionID: String?
        /// `signedTransactionInfo`, verified.
        public let transaction: AppStoreSignedItem?
        /// `signedRenewalInfo`, verified.
        public let renewalInfo: AppStoreSignedItem?
    }

    /// The groups, in Apple's order.
    public let groups: [Group]
    /// The answer's `bundleId`, `appAppleId` and `environment`.
    public let bundleID: String?
    public let appAppleID: Int64?
    public let environment: String?
}
