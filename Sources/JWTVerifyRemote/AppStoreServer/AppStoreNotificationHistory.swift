import FoundationEssentials
import JWTVerify

/// The App Store Server Notifications Apple sent, or tried to send, in a period (Get Notification
/// History, `POST /inApps/v1/notifications/history`), every page fetched, every notification verified.
public struct AppStoreNotificationHistory: Sendable {
    /// One notification and Apple's attempts to send it (`notificationHistory[]`).
    public struct Entry: Sendable {
        /// `signedPayload`, verified (its nested transaction and renewal info too).
        public let notification: AppStoreSignedItem
        /// `sendAttempts[]`.
        public let sendAttempts: [AppStoreSendAttempt]
    }

    /// The notifications of every page, in Apple's order.
    public let entries: [Entry]
    /// Pages fetched.
    public let pages: Int
}

/// What Get Notification History asks for: the JSON body Apple takes.
public struct AppStoreNotificationHistoryQuery: Sendable, Hashable {
    /// `startDate` and `endDate`, in milliseconds since the epoch (Apple keeps 180 days).
    public var startDate: Int64
    public var endDate: Int64
    /// `notificationType` and `notificationSubtype` (not together with ``transactionID``).
    public var notificationType: String?
    public var notificationSubtype: String?
    /// `transactionId`: only the notifications of this customer.
    public var transactionID: String?
    /// `onlyFailures`: only the notifications your server did not take.
    public var onlyFailures: Bool?

    /// The notifications of `startDate` up to `endDate` (milliseconds).
    public init(startDate: Int64, endDate: Int64) {
        self.startDate = startDate
        self.endDate = endDate
    }

    /// The JSON body, members in a fixed order.
    var body: [UInt8] {
        var out = "{\"startDate\":\(startDate),\"endDate\":\(endDate)"
        func member(_ name: String, _ value: String?) {
            if let value { out += ",\"\(name)\":" + Self.quoted(value) }
        }
        member("notificationType", notificationType)
        member("notificationSubtype", notificationSubtype)
        member("transactionId", transactionID)
        if let onlyFailures { out += ",\"onlyFailures\":\(onlyFailures)" }
        return Array((out + "}").utf8)
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "\\u00" + HexDigits.string([UInt8(scalar.value)])
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
