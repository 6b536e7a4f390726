package import JWTVerify

/// A route's DPoP proofs recorded in a shared ``ReplayStore`` (serve's `--replay-store`) instead
/// of the verifier's own ``DPoPReplayCache``: a proof accepted by one replica is `dpop_replayed` at
/// every other, and while the store cannot answer every proof is `replay_store_unavailable`.
package struct StoreDPoPRecorder: DPoPReplayRecorder {
    /// The store.
    package let store: any ReplayStore
    /// The route whose proofs these are (the keys' namespace).
    package let route: String

    /// A recorder for `route`'s proofs in `store`.
    package init(store: any ReplayStore, route: String) {
        self.store = store
        self.route = route
    }

    /// Records the proof in the store until `expiry` (at least one millisecond from `now`).
    package func recordProof(_ key: DPoPReplayKey, until expiry: Double, now: Double) -> ReplayRecord {
        let milliseconds = Int64(min(max(((expiry - now) * 1000).rounded(.up), 1), 86_400_000))
        return store.recordOnce(ReplayStoreKey.dpop(route: route, proof: key), milliseconds: milliseconds)
    }
}
