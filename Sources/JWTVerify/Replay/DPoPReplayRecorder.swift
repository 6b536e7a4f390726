/// Where a verifier records each DPoP proof it accepts, once, so that no proof is accepted twice
/// within its window (RFC 9449 §11.1): ``DPoPReplayCache`` in the process (the default), or a
/// store shared by several processes (serve's `--replay-store`), given to
/// ``Verifier/init(keys:policy:cache:proofRecorder:)`` or
/// ``RemoteVerifier/init(keySet:policy:cache:refreshWait:proofRecorder:)``.
///
/// A proof reaches the recorder only when the token and every other check of the proof passed,
/// and it is accepted only on ``ReplayRecord/recorded``: `seen` and `full` are `dpop_replayed`,
/// `unavailable` is `replay_store_unavailable` (retryable; serve answers `503`).
public protocol DPoPReplayRecorder: Sendable {
    /// Records `key` until `expiry` (seconds since 1970; the proof's `iat` plus the window and the
    /// leeway) unless it is recorded already and not yet expired at `now`, checking and recording
    /// at once (two calls with one key never both answer ``ReplayRecord/recorded``).
    func recordProof(_ key: DPoPReplayKey, until expiry: Double, now: Double) -> ReplayRecord
}
