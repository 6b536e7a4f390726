extension VerificationError.Reason {
    /// A shared replay store (serve's `--replay-store`) could not record a DPoP proof's `jti` or
    /// a notification's ID: it is refused (fail-closed) as retryable, never accepted unrecorded.
    public static let replayStoreUnavailable = VerificationError.Reason(rawValue: "replay_store_unavailable")
}
