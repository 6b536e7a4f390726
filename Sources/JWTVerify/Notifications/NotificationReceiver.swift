/// Receives Apple's server-to-server notifications: reads the envelope Apple posts, verifies the
/// JWS through the pipeline, and says whether the notification was seen before.
///
/// Made once per endpoint with a verifier under ``VerificationPolicy/appleNotification(audiences:)``
/// (Sign in with Apple) or ``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``:
///
/// ```swift
/// let notifications = NotificationReceiver(verifier: Verifier(keys: appleKeys, policy: .appleNotification(audiences: ["com.example.app"])))
/// switch notifications.receive(requestBody) {
/// case .success(let note) where !note.isDuplicate: handle(note.event)   // then answer 200
/// case .success: break                                                   // a retry: answer 200
/// case .failure(let rejection): answer(rejection.isRetryable ? 503 : rejection.isNotEnvelope ? 400 : 401)
/// }
/// ```
public struct NotificationReceiver: Sendable {
    /// The verifier of the notifications' JWS.
    public let verifier: Verifier
    /// The notifications seen lately.
    public let window: NotificationReplayWindow

    /// A receiver verifying with `verifier` (its policy Apple's notification rules or the App
    /// Store's) and remembering IDs in `window`.
    public init(verifier: Verifier, window: NotificationReplayWindow = NotificationReplayWindow()) {
        precondition(
            verifier.policy.rules.kind == .appleNotification || verifier.policy.rules.kind == .appStore,
            "a NotificationReceiver verifies under .appleNotification or .appStore")
        self.verifier = verifier
        self.window = window
    }

    /// Receives one POST body.
    ///
    /// - Parameters:
    ///   - body: the request body exactly as Apple posted it.
    ///   - time: evaluate at this time instead of the policy's rule (the clock; App Store data
    ///     at its `signedDate`).
    public func receive(_ body: [UInt8], at time: Double? = nil) -> Result<ReceivedNotification, NotificationRejection> {
        let verifier = self.verifier
        return body.withUnsafeBytes { bytes in
            Self.receive(bytes, window: window, at: time ?? verifier.policy.clock()) { jws in
                verifier.evaluate(jws, nonce: nil, at: time.map(EvaluationTime.fixed) ?? .clock)
            }
        }
    }

    /// The one way a body becomes a notification, for every face: the envelope read, the JWS
    /// handed to `verify` (a face's own way into the pipeline), and its ID looked up in `window`.
    package static func receive(
        _ body: UnsafeRawBufferPointer, window: NotificationReplayWindow, at time: Double,
        verify: (UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError>
    ) -> Result<ReceivedNotification, NotificationRejection> {
        let verified: Result<VerifiedToken, VerificationError>
        switch NotificationEnvelope.withSignedPayload(body, verify) {
        case .failure(let problem): return .failure(NotificationRejection(notEnvelope: problem))
        case .success(let result): verified = result
        }
        switch verified {
        case .failure(let error):
            return .failure(NotificationRejection(error))
        case .success(let token):
            let id = token.provider.appStore?.notificationUUID ?? token.claim("jti")?.stringValue
            let duplicate = id.map { window.recordSighting(of: $0, at: time) } ?? false
            return .success(ReceivedNotification(token: token, id: id, isDuplicate: duplicate))
        }
    }
}
