package import JWTVerify

/// A store several serve processes share, where an ID is recorded once, atomically with its
/// expiry (``RedisReplayStore``: `SET key 1 NX PX milliseconds`): DPoP proofs' `jti`s
/// (``StoreDPoPRecorder``) and notifications' IDs, so that a replay that reaches another replica
/// is still seen. Keys are made by ``ReplayStoreKey``.
package protocol ReplayStore: Sendable {
    /// Records `key` for `milliseconds` (at least 1) unless it is there already:
    /// ``ReplayRecord/recorded``, ``ReplayRecord/seen``, or ``ReplayRecord/unavailable(_:)`` when the
    /// store could not answer (never ``ReplayRecord/full``).
    func recordOnce(_ key: [UInt8], milliseconds: Int64) -> ReplayRecord
    /// Whether the last exchange with the store succeeded (`/metrics`' `jwtverify_replay_store_up`).
    var isUp: Bool { get }
    /// Exchanges that failed since the start (`jwtverify_replay_store_errors_total`).
    var failures: Int { get }
}
