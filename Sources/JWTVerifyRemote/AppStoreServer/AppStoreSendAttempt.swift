/// One attempt of Apple's to send a notification to your server (`sendAttempts[]`).
public struct AppStoreSendAttempt: Sendable, Hashable {
    /// When Apple tried, in milliseconds since the epoch (`attemptDate`).
    public let attemptDate: Int64?
    /// How it went (`sendAttemptResult`): `SUCCESS`, `TIMED_OUT`, `TLS_ISSUE`, `NO_RESPONSE`,
    /// `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, … as Apple sends it.
    public let result: String?

    /// An attempt from its parts.
    public init(attemptDate: Int64?, result: String?) {
        self.attemptDate = attemptDate
        self.result = result
    }
}
