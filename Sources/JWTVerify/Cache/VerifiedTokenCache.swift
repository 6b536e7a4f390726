import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An optional, bounded, thread-safe cache of tokens that fully verified, owned by one verifier
/// (a ``Verifier``, or a ``RemoteVerifier`` across its key refreshes).
///
/// Verifying a token the verifier already verified, against the same keys and policy, can skip
/// the signature and everything the token's bytes alone decide. Nothing else is skipped:
/// - **A hit needs the exact token bytes**, compared in full; the hash only finds the slot. The
///   hash is keyed (per-process random seed plus a per-cache random key), and each hash has one
///   slot, so crafted collisions cannot build chains: a lookup costs one hash and one comparison.
///   Issuer, audience and claim types are decided by the bytes and this cache's one policy.
/// - **Every check that depends on time or on the call runs again**: `exp`, `nbf`, `iat` against
///   now with the leeway, this call's nonce, and the provider's rules (Firebase `auth_time`).
/// - **Key changes invalidate**: an entry whose key is no longer in the key set under its `kid`,
///   or whose key changed or may no longer verify the token's `alg`, is dropped, not served.
/// - **Only tokens that fully verified are stored**, none longer than
///   ``Configuration/maxTokenBytes``. Memory is bounded by capacity × entry size; eviction is CLOCK.
/// - **No global lock**: entries are spread over shards, each with its own lock.
public final class VerifiedTokenCache: Sendable {
    /// How big the cache may grow.
    public struct Configuration: Sendable, Hashable {
        /// Most entries kept (at least 1).
        public var capacity: Int
        /// Longest token stored, in octets (8 KiB by default); longer ones are verified every time.
        public var maxTokenBytes: Int

        /// A cache of `capacity` entries for tokens up to `maxTokenBytes` octets.
        public init(capacity: Int, maxTokenBytes: Int = 8192) {
            precondition(capacity >= 1, "a verified-token cache needs a capacity of at least 1")
            self.capacity = capacity
            self.maxTokenBytes = maxTokenBytes
        }
    }

    /// What the cache has done so far (sums over all shards).
    public struct Counters: Sendable, Hashable {
        /// Lookups served from the cache.
        public var hits = 0
        /// Lookups that found no usable entry (an invalidated entry counts here too).
        public var misses = 0
        /// Entries stored.
        public var insertions = 0
        /// Entries pushed out to make room.
        public var evictions = 0
        /// Entries dropped because their key was gone or had changed.
        public var invalidations = 0
        /// Entries held now.
        public var entries = 0
    }

    /// The limits this cache was made with.
    public let configuration: Configuration
    private let shards: [Shard]
    private let seed: (UInt64, UInt64)

    /// A cache with `configuration`.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        // Exactly `capacity` slots in all: the first `capacity % shards` shards get one more.
        let shardCount = min(16, configuration.capacity)
        let perShard = configuration.capacity / shardCount
        let extra = configuration.capacity % shardCount
        shards = (0..<shardCount).map { shard in Shard(slots: perShard + (shard < extra ? 1 : 0)) }
        var random = SystemRandomNumberGenerator()
        seed = (random.next(), random.next())
    }

    /// The counters, summed over the shards.
    public var counters: Counters {
        var total = Counters()
        for shard in shards {
            let counts = shard.state.withLock { $0.counters }
            total.hits += counts.hits
            total.misses += counts.misses
            total.insertions += counts.insertions
            total.evictions += counts.evictions
            total.invalidations += counts.invalidations
            total.entries += counts.entries
        }
        return total
    }

    /// What a hit hands back: the verified token and what the hit must check again.
    struct Entry: Sendable {
        let verified: VerifiedToken
        /// ``KeySlot/identity`` of the key that verified it.
        let keyIdentity: UInt64
        /// `email_verified` as read when it was verified (for reports).
        let emailVerified: Bool?
    }

    /// The keyed hash of `token`: its length and its last 64 octets (inside the signature, which
    /// differs between any two tokens that verified). The hash only picks a slot: the token is
    /// then compared in full, and only verified tokens are ever stored, so a crafted token that
    /// hashes alike costs one comparison and is never served.
    func hash(_ token: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(seed.0)
        hasher.combine(seed.1)
        hasher.combine(token.count)
        hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: token[max(0, token.count - 64)...]))
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The entry stored for exactly `token`, counted as a hit; the caller then checks that its key
    /// is still valid and, if not, calls ``invalidate(_:hash:)``. (Validation reads the verifier's
    /// key set, which is kept out of the lock.)
    func lookup(_ token: UnsafeRawBufferPointer, hash: UInt64) -> Entry? {
        shards[Int(hash % UInt64(shards.count))].state.withLock { state in state.lookup(token, hash: hash) }
    }

    /// Drops the entry for `token` after a lookup found its key gone or changed; the lookup's hit
    /// becomes a miss and an invalidation.
    func invalidate(_ token: UnsafeRawBufferPointer, hash: UInt64) {
        shards[Int(hash % UInt64(shards.count))].state.withLock { state in state.invalidate(token, hash: hash) }
    }

    /// Stores `entry` for `token` (whose length is within the limit).
    func insert(_ token: UnsafeRawBufferPointer, hash: UInt64, entry: Entry) {
        let bytes = [UInt8](token)
        shards[Int(hash % UInt64(shards.count))].state.withLock { state in state.insert(bytes, hash: hash, entry: entry)
        }
    }

    /// One shard: a fixed number of slots, an index from hash to slot, and a CLOCK hand.
    private final class Shard: Sendable {
        let state: Mutex<ShardState>
        init(slots: Int) { state = Mutex(ShardState(slotCount: slots)) }
    }

    private struct Slot: Sendable {
        var hash: UInt64
        var token: [UInt8]
        var entry: Entry
        var referenced: Bool
    }

    private struct ShardState: Sendable {
        var slots: [Slot?]
        var index: [UInt64: Int]
        var hand = 0
        var counters = Counters()

        init(slotCount: Int) {
            slots = Array(repeating: nil, count: slotCount)
            index = Dictionary(minimumCapacity: slotCount)
        }

        /// The slot holding exactly `token`.
        private func position(of token: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
            guard let position = index[hash], let slot = slots[position], slot.token.count == token.count,
                slot.token.withUnsafeBytes({ memcmp($0.baseAddress!, token.baseAddress!, token.count) == 0 })
            else { return nil }
            return position
        }

        mutating func lookup(_ token: UnsafeRawBufferPointer, hash: UInt64) -> Entry? {
            guard let position = position(of: token, hash: hash) else {
                counters.misses += 1
                return nil
            }
            slots[position]!.referenced = true
            counters.hits += 1
            return slots[position]!.entry
        }

        mutating func invalidate(_ token: UnsafeRawBufferPointer, hash: UInt64) {
            counters.hits -= 1
            counters.misses += 1
            guard let position = position(of: token, hash: hash) else { return }
            slots[position] = nil
            index[hash] = nil
            counters.invalidations += 1
            counters.entries -= 1
        }

        mutating func insert(_ token: [UInt8], hash: UInt64, entry: Entry) {
            // One slot per hash: a colliding token replaces the stored one (a chain never forms).
            if let position = index[hash] {
                slots[position] = Slot(hash: hash, token: token, entry: entry, referenced: false)
                counters.insertions += 1
                return
            }
            // CLOCK: the first free slot, or the first whose reference bit is clear (clearing bits
            // on the way round).
            while let slot = slots[hand], slot.referenced {
                slots[hand]!.referenced = false
                hand = (hand + 1) % slots.count
            }
            if let old = slots[hand] {
                index[old.hash] = nil
                counters.evictions += 1
            } else {
                counters.entries += 1
            }
            slots[hand] = Slot(hash: hash, token: token, entry: entry, referenced: false)
            index[hash] = hand
            hand = (hand + 1) % slots.count
            counters.insertions += 1
        }
    }
}
