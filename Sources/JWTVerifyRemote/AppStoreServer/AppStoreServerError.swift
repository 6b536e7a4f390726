public import JWTVerify

/// Why a call to the App Store Server API failed: Apple's documented error (`errorCode`,
/// `errorMessage`), Apple refusing our bearer token (401), a signed item of the answer that does
/// not verify, a transport failure, or an answer that is not Apple's contract; and whether trying
/// again can help.
///
/// Equality and hashing look only at ``code``. No key, bearer token or signed item ever appears
/// in ``detail`` or ``description``.
public struct AppStoreServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the failure came from.
    public enum Kind: String, Sendable, Hashable {
        /// Apple answered with one of its documented errors (``appleErrorCode``, ``appleErrorMessage``).
        case apple
        /// Apple answered 401: it refused our bearer token (wrong key, issuer, bundle ID, or an
        /// expired or too long-lived token).
        case unauthorized
        /// A signed item of the answer failed verification under the App Store policy; ``code``
        /// is its reason and ``item`` names it.
        case signedData = "signed_data"
        /// No usable answer came (a time-out, a connection failure, a 5xx, a 429): trying again can help.
        case unavailable
        /// An answer came but is not Apple's contract: not JSON, a missing field, an unexpected
        /// status or redirect, a body over the cap, more pages than the cap.
        case response
        /// The client cannot be made: an unusable key, an empty ID, a base URL that is neither
        /// https nor http to loopback.
        case configuration
    }

    /// A stable, machine-readable code: the name of Apple's error code, a signed item's
    /// `VerificationError.Reason`, or one of the codes below.
    public struct Code: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        /// The code, e.g. `"transaction_id_not_found"`.
        public let rawValue: String
        /// A code from its text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Apple answered 401: our bearer token was refused.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// No answer within the time-out.
        public static let timeout = Code(rawValue: "timeout")
        /// The connection could not be made or broke.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// Apple answered 5xx without a documented error.
        public static let serverError = Code(rawValue: "server_error")
        /// Apple answered 429 (with `Retry-After` when it gave one).
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// A 200 whose body is not the JSON Apple documents.
        public static let responseInvalid = Code(rawValue: "response_invalid")
        /// A body over the client's cap.
        public static let responseTooLarge = Code(rawValue: "response_too_large")
        /// A status (or a redirect) the contract does not have.
        public static let unexpectedStatus = Code(rawValue: "unexpected_status")
        /// A paged answer went on past the client's page cap.
        public static let tooManyPages = Code(rawValue: "too_many_pages")
        /// The client's configuration is unusable.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")

        /// The code.
        public var description: String { rawValue }
    }

    /// Where the failure came from.
    public let kind: Kind
    /// The stable code.
    public let code: Code
    /// What happened, for people.
    public let detail: String
    /// The HTTP status of Apple's answer, when there was one.
    public let status: Int?
    /// Seconds Apple asked to wait (`Retry-After` on a 429 or 5xx), when given.
    public let retryAfter: Double?
    /// Apple's `errorCode`, when its answer carried one.
    public let appleErrorCode: AppStoreServerAPIErrorCode?
    /// Apple's `errorMessage`, when its answer carried one (at most 200 characters).
    public let appleErrorMessage: String?
    /// The signed item's verification error, for ``Kind/signedData``.
    public let verificationError: VerificationError?
    /// Which signed item failed, for ``Kind/signedData``: its member and position in the answer,
    /// e.g. `signedTransactions[3]` (page 2) or `data[0].lastTransactions[1].signedRenewalInfo`.
    public let item: String?

    /// An error of `kind` with `code`.
    public init(
        _ kind: Kind, _ code: Code, detail: String = "", status: Int? = nil, retryAfter: Double? = nil,
        appleErrorCode: AppStoreServerAPIErrorCode? = nil, appleErrorMessage: String? = nil,
        verificationError: VerificationError? = nil, item: String? = nil
    ) {
        self.kind = kind
        self.code = code
        self.detail = detail
        self.status = status
        self.retryAfter = retryAfter
        self.appleErrorCode = appleErrorCode
        self.appleErrorMessage = appleErrorMessage
        self.verificationError = verificationError
        self.item = item
    }

    /// A signed item that failed verification: its reason is the code.
    public static func signedData(_ error: VerificationError, item: String) -> AppStoreServerError {
        AppStoreServerError(
            .signedData, Code(rawValue: error.reason.rawValue),
            detail: "\(item) in Apple's answer is not acceptable: \(error.detail)", verificationError: error,
            item: item)
    }

    /// Whether the same call may succeed later: time-outs, connection failures, 5xx, 429, Apple's
    /// retryable codes, and a signed item whose revocation status could not be had. Never a 401,
    /// Apple's other errors, or a signed item that fails.
    public var isRetryable: Bool {
        switch kind {
        case .unavailable: true
        case .apple: appleErrorCode?.isRetryable ?? false
        case .signedData: verificationError?.reason == .revocationUnavailable
        case .unauthorized, .response, .configuration: false
        }
    }

    /// Whether Apple refused our bearer token (401): the credentials, not the request, are wrong.
    public var isTokenRefused: Bool { kind == .unauthorized }

    /// `code: detail`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }

    /// Compares codes only.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
