import Synchronization

/// The DPoP proofs a verifier accepted and still remembers, so that none is accepted twice
/// within its window (RFC 9449 §11.1): one per ``Verifier`` (shared by a ``RemoteVerifier``'s
/// verifiers across key refreshes), thread-safe behind one `Mutex`. The default
/// ``DPoPReplayRecorder``: a verifier given another recorder (a store shared by several
/// processes) has none.
///
/// - **What is remembered**: the SHA-256 of the proof key's thumbprint and the proof's `jti`
///   (32 octets, whatever the `jti`'s length), until the proof's `iat` plus the window plus the
///   leeway: after that the proof is refused as too old anyway. A `jti` is recorded only when the
///   token and every other check of its proof passed, atomically with the check that it is new.
/// - **Bounded**: at most ``capacity`` proofs (``DPoPPolicy/replayCapacity``), about 100 octets
///   each. Proofs past their window are forgotten first, oldest first.
/// - **Full means refusal (fail-closed)**: when every remembered proof is still within its window,
///   a new proof is refused as `dpop_replayed` ("the replay cache is full") rather than accepted
///   unrecorded or accepted by forgetting one that could still be replayed. Size the capacity for
///   the proofs a window brings (requests per second × (window + leeway)).
public final class DPoPReplayCache: DPoPReplayRecorder {
    /// Most proofs remembered at once.
    public let capacity: Int
    /// The proof keys imported lately (``DPoPKeyCache``), kept beside the proofs they signed.
    package let keys = DPoPKeyCache()
    private let state: Mutex<State>

    /// What a record attempt found.
    package enum Outcome: Equatable {
        /// New: remembered now.
        case recorded
        /// Already remembered and still within its window.
        case replayed
        /// Full of proofs still within their windows: not remembered, so to be refused.
        case full
    }

    private struct State {
        /// Each remembered proof's expiry.
        var expiries: [SHA256Digest: Double] = [:]
        /// The proofs in the order they were remembered, from `head` on (a queue; entries whose
        /// expiry no longer matches `expiries` were forgotten and are skipped).
        var order: [(digest: SHA256Digest, expiry: Double)] = []
        /// Where the oldest entry of `order` is.
        var head = 0
        /// When expired entries were last swept out of the whole queue.
        var lastSweep = -Double.infinity
    }

    /// An empty cache for at most `capacity` proofs (at least 1).
    public init(capacity: Int) {
        precondition(capacity >= 1, "a DPoP replay cache needs a capacity of at least 1")
        self.capacity = capacity
        self.state = Mutex(State())
    }

    /// How many proofs are remembered now (expired ones not yet forgotten included).
    public var count: Int { state.withLock { $0.expiries.count } }

    /// Remembers `digest` until `expiry` unless it is remembered already (and not past its own
    /// expiry at `now`), or the cache is full of entries not past theirs.
    package func record(_ digest: SHA256Digest, until expiry: Double, now: Double) -> Outcome {
        state.withLock { state in
            Self.dropExpiredFront(&state, now: now)
            if let known = state.expiries[digest] {
                if known > now { return .replayed }
                state.expiries[digest] = nil
            }
            if state.expiries.count >= capacity, now - state.lastSweep >= 1 { Self.sweep(&state, now: now) }
            guard state.expiries.count < capacity else { return .full }
            state.expiries[digest] = expiry
            state.order.append((digest, expiry))
            // Forgotten entries waiting in the queue behind a live one: never more than the capacity.
            if state.order.count - state.head > 2 * capacity { Self.sweep(&state, now: now) }
            return .recorded
        }
    }

    /// Records `key` until `expiry` unless it is remembered already (``ReplayRecord/seen``) or the
    /// cache is full of proofs not past their expiry at `now` (``ReplayRecord/full``).
    public func recordProof(_ key: DPoPReplayKey, until expiry: Double, now: Double) -> ReplayRecord {
        switch record(key.digest, until: expiry, now: now) {
        case .recorded: .recorded
        case .replayed: .seen
        case .full: .full
        }
    }

    /// Forgets the oldest entries while they are past their expiry (or already forgotten).
    private static func dropExpiredFront(_ state: inout State, now: Double) {
        while state.head < state.order.count {
            let oldest = state.order[state.head]
            let live = state.expiries[oldest.digest] == oldest.expiry
            if live && oldest.expiry > now { break }
            if live { state.expiries[oldest.digest] = nil }
            state.head += 1
        }
        if state.head > 0 && state.head * 2 >= state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }

    /// Forgets every entry past its expiry, wherever it is in the queue.
    private static func sweep(_ state: inout State, now: Double) {
        state.lastSweep = now
        var kept: [(digest: SHA256Digest, expiry: Double)] = []
        kept.reserveCapacity(state.expiries.count)
        for entry in state.order[state.head...] where state.expiries[entry.digest] == entry.expiry {
            if entry.expiry > now {
                kept.append(entry)
            } else {
                state.expiries[entry.digest] = nil
            }
        }
        state.order = kept
        state.head = 0
    }
}
