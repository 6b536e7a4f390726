public import JWTVerify

/// Why a call to Apple's Sign in with Apple REST endpoints failed: Apple's own error code, a
/// transport failure, an answer that is not acceptable, or the returned identity token's reason,
/// and whether trying again can help.
///
/// Equality and hashing look only at ``code``. No secret, code, token or key ever appears in
/// ``detail`` or ``description``.
public struct SignInWithAppleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the failure came from.
    public enum Kind: String, Sendable, Hashable {
        /// Apple answered with an OAuth error (`invalid_grant`, `invalid_client`, …) in a 400 body.
        case apple
        /// Apple's answer carried an identity token that failed verification; ``code`` is its reason.
        case identityToken = "identity_token"
        /// No usable answer came (a time-out, a connection failure, a 5xx or a 429), or a
        /// revocation Apple took is not in force yet: trying again can help.
        case unavailable
        /// An answer came but is not Apple's contract: not JSON, a missing field, an unexpected
        /// status or redirect, a body over the cap.
        case response
        /// The client cannot be made: an unusable key, an empty ID, a base URL that is neither
        /// https nor http to loopback.
        case configuration
    }

    /// A stable, machine-readable code: Apple's OAuth error, an identity token's
    /// `VerificationError.Reason`, or one of the transport and response codes below.
    public struct Code: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        /// The code, e.g. `"invalid_grant"`.
        public let rawValue: String
        /// A code from its text (any string is representable, so Apple's future codes round-trip).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Apple: a required parameter is missing or the request is malformed.
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// Apple: the client secret or client ID was refused.
        public static let invalidClient = Code(rawValue: "invalid_client")
        /// Apple: the code or refresh token is used, expired or revoked (or the redirect URI differs).
        public static let invalidGrant = Code(rawValue: "invalid_grant")
        /// Apple: this client may not use this grant.
        public static let unauthorizedClient = Code(rawValue: "unauthorized_client")
        /// Apple: the grant type is not one Apple supports.
        public static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        /// Apple: the requested scope is not allowed.
        public static let invalidScope = Code(rawValue: "invalid_scope")
        /// No answer within the time-out.
        public static let timeout = Code(rawValue: "timeout")
        /// The connection could not be made or broke.
        public static let connectionFailed = Code(rawValue: "connection_failed")
        /// Apple answered 5xx.
        public static let serverError = Code(rawValue: "server_error")
        /// Apple answered 429.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// A 200 whose body is not the JSON Apple documents (HTML, cut JSON, a field missing or of
        /// the wrong type).
        public static let responseInvalid = Code(rawValue: "response_invalid")
        /// A body over the client's cap.
        public static let responseTooLarge = Code(rawValue: "response_too_large")
        /// A status (or a redirect) the contract does not have.
        public static let unexpectedStatus = Code(rawValue: "unexpected_status")
        /// The revocation was accepted, but a refresh check afterwards still succeeded.
        public static let revocationUnconfirmed = Code(rawValue: "revocation_unconfirmed")
        /// The client's configuration is unusable.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")

        /// The OAuth error codes Apple documents.
        public static let appleCodes: [Code] = [
            .invalidRequest, .invalidClient, .invalidGrant, .unauthorizedClient, .unsupportedGrantType, .invalidScope,
        ]

        /// The code.
        public var description: String { rawValue }
    }

    /// Where the failure came from.
    public let kind: Kind
    /// The stable code.
    public let code: Code
    /// What happened, for people (never a secret, code or token).
    public let detail: String
    /// The HTTP status of Apple's answer, when there was one.
    public let status: Int?
    /// Seconds Apple asked to wait (`Retry-After` on a 429 or 5xx), when given.
    public let retryAfter: Double?
    /// The identity token's verification error, for ``Kind/identityToken``.
    public let verificationError: VerificationError?

    /// An error of `kind` with `code`.
    public init(
        _ kind: Kind, _ code: Code, detail: String = "", status: Int? = nil, retryAfter: Double? = nil,
        verificationError: VerificationError? = nil
    ) {
        self.kind = kind
        self.code = code
        self.detail = detail
        self.status = status
        self.retryAfter = retryAfter
        self.verificationError = verificationError
    }

    /// The failure of an identity token Apple returned: its reason is the code.
    public static func identityToken(_ error: VerificationError) -> SignInWithAppleError {
        SignInWithAppleError(
            .identityToken, Code(rawValue: error.reason.rawValue),
            detail: "the id token Apple returned is not acceptable: \(error.detail)",
            verificationError: error)
    }

    /// A revocation Apple took while the refresh token still works afterwards: Apple answers 200
    /// to any token, so only a later check tells. Retryable: revoke and check again later.
    public static let revocationUnconfirmed = SignInWithAppleError(
        .unavailable, .revocationUnconfirmed,
        detail: "Apple took the revocation, but the refresh token still works; check again later")

    /// Whether the same call may succeed later: time-outs, connection failures, 5xx and 429, a
    /// revocation not yet in force (`revocation_unconfirmed`), and an identity token whose keys
    /// could not be had (`jwks_unavailable`). Never for Apple's refusals (`invalid_grant`,
    /// `invalid_client`, …) or a bad identity token.
    public var isRetryable: Bool {
        switch kind {
        case .unavailable: true
        case .identityToken: verificationError?.reason == .keySetUnavailable
        case .apple, .response, .configuration: false
        }
    }

    /// Whether Apple refused the grant itself (`invalid_grant`): the code is used or expired, or
    /// the refresh token was revoked (by the user or by you) or expired.
    public var isGrantRefused: Bool { kind == .apple && code == .invalidGrant }

    /// `code: detail`.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }

    /// Compares codes only.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
