import Synchronization

/// The proof keys a verifier imported lately, by their exact key material: a DPoP client signs
/// every proof of a session with one key, so its `jwk` is imported (and its point checked) and
/// its RFC 7638 thumbprint computed once, not once per request, and each later proof costs its
/// signature check.
///
/// Keyed by the key type and the decoded public members (`n` and `e`, `x` and `y`, or `x`): two
/// `jwk`s that share them are the same key, whatever else they say (their `alg`, `use` and
/// `key_ops` are checked on every proof, from the proof's own `jwk`). Bounded: at most
/// ``capacity`` keys; when full, the oldest is forgotten. Thread-safe behind one `Mutex`.
package final class DPoPKeyCache: Sendable {
    /// Most keys kept at once.
    package let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var keys: [[UInt8]: Entry] = [:]
        /// The keys in the order they were kept, oldest first from `head`.
        var order: [[UInt8]] = []
        var head = 0
    }

    /// An empty cache for at most `capacity` keys (at least 1).
    package init(capacity: Int = 1024) {
        precondition(capacity >= 1, "a DPoP key cache needs a capacity of at least 1")
        self.capacity = capacity
    }

    /// A kept key and its thumbprint.
    package struct Entry: Sendable {
        /// The imported key.
        package let key: EVPPublicKey
        /// Its RFC 7638 thumbprint.
        package let thumbprint: String

        /// A key and its thumbprint.
        package init(key: EVPPublicKey, thumbprint: String) {
            self.key = key
            self.thumbprint = thumbprint
        }
    }

    /// How many keys are kept now.
    package var count: Int { state.withLock { $0.keys.count } }

    /// The key of `material` (its type's tag first) with its thumbprint, made by `make` the first time.
    package func key(_ material: [UInt8], make: () throws -> Entry) rethrows -> Entry {
        if let known = state.withLock({ $0.keys[material] }) { return known }
        let key = try make()
        state.withLock { state in
            guard state.keys[material] == nil else { return }
            if state.keys.count >= capacity {
                state.keys[state.order[state.head]] = nil
                state.head += 1
                if state.head * 2 >= state.order.count {
                    state.order.removeFirst(state.head)
                    state.head = 0
                }
            }
            state.keys[material] = key
            state.order.append(material)
        }
        return key
    }
}
