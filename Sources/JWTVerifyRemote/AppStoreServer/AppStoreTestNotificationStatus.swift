/// What became of a test notification (Get Test Notification Status,
/// `GET /inApps/v1/notifications/test/{token}`): the `TEST` notification, verified, and Apple's
/// attempts to send it.
public struct AppStoreTestNotificationStatus: Sendable {
    /// `signedPayload`, verified.
    public let notification: AppStoreSignedItem
    /// `sendAttempts[]`.
    public let sendAttempts: [AppStoreSendAttempt]
}
