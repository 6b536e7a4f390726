/// A server-to-server notification whose JWS verified: Sign in with Apple's (``event``) or the
/// App Store's (``appStore``), and whether it was seen before.
public struct ReceivedNotification: Sendable {
    /// The verified token.
    public let token: VerifiedToken
    /// The notification's unique ID: `jti` for Sign in with Apple, `notificationUUID` for the
    /// App Store; `nil` when the token has none (then it is never a duplicate).
    public let id: String?
    /// Whether the same ID arrived before within the window: Apple retried the delivery.
    /// Answer 200 as for the first, and do not act on it again.
    public let isDuplicate: Bool

    /// Sign in with Apple: the event (`email-disabled`, `email-enabled`, `consent-revoked`,
    /// `account-delete`, or a newer type as sent).
    public var event: AppleNotificationEvent? { token.provider(as: AppleNotificationClaims.self)?.event }
    /// The App Store: the typed notification, its nested transaction and renewal info verified.
    public var appStore: AppStoreClaims? { token.provider(as: AppStoreClaims.self) }
}

/// Why a notification body was not accepted: not Apple's envelope, a JWS that failed, or a
/// verified notification whose ID a persisted window could not record.
public struct NotificationRejection: Error, Sendable, CustomStringConvertible {
    /// `body_not_notification`, the JWS's ``VerificationError/Reason`` code, or the window file's
    /// ``NotificationWindowFileError/Reason`` code (`state_unwritable`).
    public let code: String
    /// The JWS's verification error, when there was a JWS and it failed.
    public let verificationError: VerificationError?
    /// The window file's error, when the JWS verified but its ID could not be written to the
    /// window's file (``NotificationReplayWindow/init(persistingTo:capacity:retention:)``).
    public let windowFileError: NotificationWindowFileError?
    /// What was wrong, for people.
    public let detail: String

    /// A body that is not `{"payload": …}` or `{"signedPayload": …}`: answer 400.
    public var isNotEnvelope: Bool { verificationError == nil && windowFileError == nil }
    /// Keys or a revocation answer could not be had (`jwks_unavailable`, `revocation_unavailable`),
    /// or the ID could not be recorded (`state_unwritable`, `replay_store_unavailable`): answer 503
    /// so that Apple delivers it again.
    public var isRetryable: Bool {
        windowFileError != nil || verificationError?.reason == .keySetUnavailable
            || verificationError?.reason == .revocationUnavailable
            || verificationError?.reason == .replayStoreUnavailable
    }

    init(notEnvelope problem: NotificationEnvelope.Problem) {
        code = NotificationEnvelope.notEnvelopeCode
        verificationError = nil
        windowFileError = nil
        detail = problem.description
    }

    init(_ error: VerificationError) {
        code = error.reason.rawValue
        verificationError = error
        windowFileError = nil
        detail = error.detail
    }

    init(notRecorded error: NotificationWindowFileError) {
        code = error.reason.rawValue
        verificationError = nil
        windowFileError = error
        detail = error.detail
    }

    /// `code: detail`.
    public var description: String { detail.isEmpty ? code : "\(code): \(detail)" }
}
