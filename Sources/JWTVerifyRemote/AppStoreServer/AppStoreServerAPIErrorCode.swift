/// One of the numeric error codes the App Store Server API documents for its calls, as Apple
/// sends it in an error body (`{"errorCode": 4040010, "errorMessage": "Transaction id not found."}`),
/// with a stable name and whether Apple says trying again can help.
///
/// Any number is representable: a code Apple adds later keeps its number, with the name
/// `apple_error` until this table knows it.
public struct AppStoreServerAPIErrorCode: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
    /// Apple's number, e.g. `4040010`.
    public let rawValue: Int
    /// A code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The stable name, e.g. `transaction_id_not_found`; `apple_error` for a number the table
    /// does not know.
    public var name: String { Self.table[rawValue]?.name ?? "apple_error" }

    /// Whether Apple documents the code as retryable (the `…_retryable` codes, rate limiting,
    /// `general_internal_retryable`).
    public var isRetryable: Bool { Self.table[rawValue]?.retryable ?? false }

    /// `name (number)`.
    public var description: String { "\(name) (\(rawValue))" }

    /// The transaction ID is not one Apple knows.
    public static let transactionIDNotFound = AppStoreServerAPIErrorCode(rawValue: 4_040_010)
    /// The original transaction ID is not one Apple knows.
    public static let originalTransactionIDNotFound = AppStoreServerAPIErrorCode(rawValue: 4_040_005)
    /// The test notification token is expired, or its status is not available yet.
    public static let testNotificationNotFound = AppStoreServerAPIErrorCode(rawValue: 4_040_008)
    /// The app has no App Store Server Notifications URL configured.
    public static let serverNotificationURLNotFound = AppStoreServerAPIErrorCode(rawValue: 4_040_007)
    /// The pagination token expired (notification history).
    public static let paginationTokenExpired = AppStoreServerAPIErrorCode(rawValue: 4_000_017)
    /// Too many requests: see `Retry-After`.
    public static let rateLimitExceeded = AppStoreServerAPIErrorCode(rawValue: 4_290_000)

    /// The codes the calls of ``AppStoreServerClient`` document, by number: name, retryable.
    static let table: [Int: (name: String, retryable: Bool)] = [
        4_000_000: ("general_bad_request", false), 4_000_002: ("invalid_app_identifier", false),
        4_000_005: ("invalid_request_revision", false), 4_000_006: ("invalid_transaction_id", false),
        4_000_008: ("invalid_original_transaction_id", false), 4_000_012: ("start_date_too_far_in_past", false),
        4_000_013: ("start_date_after_end_date", false), 4_000_014: ("invalid_pagination_token", false),
        4_000_015: ("invalid_start_date", false), 4_000_016: ("invalid_end_date", false),
        4_000_017: ("pagination_token_expired", false), 4_000_018: ("invalid_notification_type", false),
        4_000_019: ("multiple_filters_supplied", false), 4_000_020: ("invalid_test_notification_token", false),
        4_000_021: ("invalid_sort", false), 4_000_022: ("invalid_product_type", false),
        4_000_023: ("invalid_product_id", false), 4_000_024: ("invalid_subscription_group_identifier", false),
        4_000_026: ("invalid_in_app_ownership_type", false), 4_000_030: ("invalid_revoked", false),
        4_000_031: ("invalid_status", false), 4_000_048: ("app_transaction_id_not_supported", false),
        4_000_185: ("family_transaction_not_supported", false),
        4_000_187: ("transaction_id_is_not_original_transaction_id", false),
        4_040_001: ("account_not_found", false), 4_040_002: ("account_not_found_retryable", true),
        4_040_003: ("app_not_found", false), 4_040_004: ("app_not_found_retryable", true),
        4_040_005: ("original_transaction_id_not_found", false),
        4_040_006: ("original_transaction_id_not_found_retryable", true),
        4_040_007: ("server_notification_url_not_found", false), 4_040_008: ("test_notification_not_found", false),
        4_040_009: ("status_request_not_found", false), 4_040_010: ("transaction_id_not_found", false),
        4_290_000: ("rate_limit_exceeded", true), 5_000_000: ("general_internal", false),
        5_000_001: ("general_internal_retryable", true),
    ]
}
