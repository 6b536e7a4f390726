/// Receives Apple's server-to-server notifications: reads the envelope Apple posts, verifies the
/// JWS through the pipeline, and says whether the notification was seen before.
///
/// Made once per endpoint with a verifier under ``VerificationPolicy/appleNotification(audiences:)``
/// (Sign in with Apple) or ``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``,
/// over keys at hand (``Verifier``) or remote ones (``RemoteVerifier``); see the Sign in with Apple
/// article for a whole endpoint.
public struct NotificationReceiver: Sendable {
    /// The notifications seen lately.
    public let window: NotificationReplayWindow
    /// The verifier of the notifications' JWS: over keys at hand or a remote set.
    private let verifier: AnyVerifier

    /// A receiver verifying with `verifier` (its policy Apple's notification rules or the App
    /// Store's; its keys at hand, or a remote set's) and remembering IDs in `window`.
    public init(verifier: AnyVerifier, window: NotificationReplayWindow = NotificationReplayWindow()) {
        Self.checkRules(verifier.policy)
        self.verifier = verifier
        self.window = window
    }

    /// A receiver verifying with keys at hand (``init(verifier:window:)-(AnyVerifier,_)``).
    public init(verifier: Verifier, window: NotificationReplayWindow = NotificationReplayWindow()) {
        self.init(verifier: .local(verifier), window: window)
    }

    /// A receiver verifying with the keys of a remote set (Apple's, kept current).
    public init(verifier: RemoteVerifier, window: NotificationReplayWindow = NotificationReplayWindow()) {
        self.init(verifier: .remote(verifier), window: window)
    }

    private static func checkRules(_ policy: VerificationPolicy) {
        precondition(
            policy.rules.receivesNotifications,
            "a NotificationReceiver verifies under .appleNotification or .appStore")
    }

    /// Receives one POST body. Over remote keys, a JWS naming a key the set lacks may wait for
    /// the one rate-limited refresh (as ``RemoteVerifier/verify(_:nonce:at:)`` does); keys at
    /// hand never wait.
    ///
    /// - Parameters:
    ///   - body: the request body exactly as Apple posted it.
    ///   - time: evaluate at this time instead of the policy's rule (the clock; App Store data
    ///     at its `signedDate`).
    public func receive(_ body: [UInt8], at time: Double? = nil) async -> Result<
        ReceivedNotification, NotificationRejection
    > {
        switch verifier {
        case .local(let verifier):
            return body.withUnsafeBytes { bytes in
                Self.receive(bytes, window: window, at: time ?? verifier.policy.clock()) { jws in
                    verifier.evaluate(jws, nonce: nil, at: time.map(EvaluationTime.fixed) ?? .clock)
                }
            }
        case .remote(let verifier):
            let jws: [UInt8]
            switch body.withUnsafeBytes({ NotificationEnvelope.withSignedPayload($0) { Array($0) } }) {
            case .failure(let problem): return .failure(NotificationRejection(notEnvelope: problem))
            case .success(let bytes): jws = bytes
            }
            let verified: Result<VerifiedToken, VerificationError>
            do {
                verified = .success(try await verifier.verify(String(decoding: jws, as: UTF8.self), at: time))
            } catch {
                verified = .failure(error)
            }
            return Self.record(verified, window: window, at: time ?? verifier.policy.clock())
        }
    }

    /// The one way a body becomes a notification, for every face: the envelope read, the JWS
    /// handed to `verify` (a face's own way into the pipeline), and its ID looked up in `window`.
    package static func receive(
        _ body: UnsafeRawBufferPointer, window: NotificationReplayWindow, at time: Double,
        verify: (UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError>
    ) -> Result<ReceivedNotification, NotificationRejection> {
        switch NotificationEnvelope.withSignedPayload(body, verify) {
        case .failure(let problem): .failure(NotificationRejection(notEnvelope: problem))
        case .success(let verified): record(verified, window: window, at: time)
        }
    }

    /// ``receive(_:window:at:verify:)`` with the ID recorded by `sight` instead of a window (a
    /// store several processes share): ``ReplayRecord/seen`` is a duplicate, and
    /// ``ReplayRecord/unavailable(_:)`` (or `full`) a retryable refusal,
    /// `replay_store_unavailable`, never an acknowledgement.
    package static func receive(
        _ body: UnsafeRawBufferPointer, sight: (String) -> ReplayRecord,
        verify: (UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError>
    ) -> Result<ReceivedNotification, NotificationRejection> {
        switch NotificationEnvelope.withSignedPayload(body, verify) {
        case .failure(let problem): .failure(NotificationRejection(notEnvelope: problem))
        case .success(let verified):
            record(verified) { id -> Result<Bool, NotificationRejection> in
                switch sight(id) {
                case .recorded: .success(false)
                case .seen: .success(true)
                case .full: .failure(Self.unrecorded("the replay store is full"))
                case .unavailable(let why): .failure(Self.unrecorded(why))
                }
            }
        }
    }

    /// A verdict as a notification: its ID (`notificationUUID`, else `jti`) looked up in `window`;
    /// a sighting a persisted window cannot write is refused (retryable), not acknowledged.
    private static func record(
        _ verified: Result<VerifiedToken, VerificationError>, window: NotificationReplayWindow, at time: Double
    ) -> Result<ReceivedNotification, NotificationRejection> {
        record(verified) { id -> Result<Bool, NotificationRejection> in
            do throws(NotificationWindowFileError) {
                return .success(try window.recordSighting(of: id, at: time))
            } catch {
                return .failure(NotificationRejection(notRecorded: error))
            }
        }
    }

    /// `replay_store_unavailable`: the ID could not be recorded, for `why`.
    private static func unrecorded(_ why: String) -> NotificationRejection {
        NotificationRejection(
            VerificationError(
                .replayStoreUnavailable,
                detail: "the notification's ID could not be recorded (\(why)); deliver it again"))
    }

    /// A verdict as a notification, its ID recorded by `sight` (`true`: a duplicate).
    private static func record(
        _ verified: Result<VerifiedToken, VerificationError>, sight: (String) -> Result<Bool, NotificationRejection>
    ) -> Result<ReceivedNotification, NotificationRejection> {
        switch verified {
        case .failure(let error):
            return .failure(NotificationRejection(error))
        case .success(let token):
            guard let id = token.provider.notificationID else {
                return .success(ReceivedNotification(token: token, id: nil, isDuplicate: false))
            }
            switch sight(id) {
            case .success(let duplicate):
                return .success(ReceivedNotification(token: token, id: id, isDuplicate: duplicate))
            case .failure(let rejection): return .failure(rejection)
            }
        }
    }
}
