internal import CFixedBaseP256
internal import COpenSSL
import Dispatch
import Synchronization

/// One P-256 public key with OpenSSL's fixed-base table for it (`jwtv_p256_key`): ES256 verified
/// as u1·G + u2·Q with both products through a precomputed table, about twice OpenSSL's own
/// `EVP_PKEY_verify` rate, and more in batches (see `fixed_base_p256.h`): there the inverses of
/// all s share one inversion, and where ``MultiBufferEngine`` is loaded, u1·G for eight signatures
/// at a time comes from crypto_mb's lanes.
///
/// Immutable once built, so it verifies on many threads at once. Freed exactly once, in `deinit`.
package final class FixedBaseP256Key: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Whether this OpenSSL build has the calls the fast path needs.
    package static let isAvailable = jwtv_p256_available() == 1

    /// Builds the table (about 25 ms) for an uncompressed SEC1 point on P-256; `nil` when the point
    /// is not one, or the fast path is unavailable.
    package init?(uncompressedPoint point: [UInt8]) {
        guard let pointer = point.withUnsafeBytes({ jwtv_p256_key_new($0.baseAddress, $0.count) }) else { return nil }
        self.pointer = pointer
    }

    deinit { jwtv_p256_key_free(pointer) }

    /// Whether `signature` (r‖s, 64 octets) is a valid signature of the 32-octet `digest`, using
    /// this thread's scratch.
    package func isValidSignature(_ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        isValidSignature(signature, digest: digest, contexts: .current)
    }

    /// ``isValidSignature(_:digest:)`` with the calling thread's contexts in hand.
    func isValidSignature(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, contexts: ThreadContexts
    ) -> Bool {
        guard signature.count == 64, digest.count == 32 else { return false }
        return jwtv_p256_verify(pointer, contexts.p256Scratch, digest.baseAddress, signature.baseAddress) == 1
    }

    /// The most signatures one ``verify(_:valid:)`` call takes.
    package static let batchLimit = Int(JWTV_P256_BATCH_MAX)

    /// One signature of a batch: key, 32-octet digest and 64-octet r‖s, borrowed for the call.
    package struct BatchEntry {
        /// The key the signature claims.
        package let key: FixedBaseP256Key
        /// 32 octets: SHA-256 of the signing input.
        package let digest: UnsafeRawPointer
        /// 64 octets: r‖s.
        package let signature: UnsafeRawPointer

        /// An entry over memory the caller keeps alive for the call.
        package init(key: FixedBaseP256Key, digest: UnsafeRawPointer, signature: UnsafeRawPointer) {
            self.key = key
            self.digest = digest
            self.signature = signature
        }
    }

    /// Verifies up to ``batchLimit`` signatures with one modular inversion for all their s; each
    /// verdict (`valid[i]`) depends on its own entry only. For tests and the fuzz target; the
    /// signature stage calls ``verify(_:)``.
    package static func verify(_ entries: UnsafeBufferPointer<BatchEntry>, valid: UnsafeMutableBufferPointer<UInt8>) {
        precondition(entries.count <= batchLimit && valid.count >= entries.count, "batch of \(entries.count)")
        guard !entries.isEmpty else { return }
        let batch = SignatureBatch()
        for entry in entries { batch.append(key: entry.key.pointer, signature: entry.signature, digest: entry.digest) }
        verify(batch)
        for i in entries.indices { valid[i] = batch.valid[i] }
        withExtendedLifetime(entries) {}
    }

    /// The signature stage's entry: every signature of `batch` (ES256, 32-octet digests, keys
    /// with tables the caller keeps alive) with one modular inversion for all; each verdict
    /// depends on its own signature only.
    static func verify(_ batch: SignatureBatch) {
        precondition(batch.count > 0 && batch.count <= batchLimit, "batch of \(batch.count)")
        // A batch with a group worth crypto_mb's lanes starts the search for it (without waiting).
        if batch.count >= Int(JWTV_P256_MB_MIN_LANES) { _ = MultiBufferEngine.isReady }
        _ = jwtv_p256_verify_batch(
            batch.count, batch.keys, batch.digests, batch.signatures, batch.valid, ThreadContexts.current.p256Scratch)
    }
}

/// Decides when a P-256 key gets its fixed-base table: after ``threshold`` ES256 verifications,
/// built once, off the verifying threads (a background queue: no request waits the 25 ms; every
/// thread keeps using `EVP_PKEY_verify` meanwhile), and only while its ``Pool`` holds fewer tables
/// than its cap.
final class FixedBaseSlot: Sendable {
    /// Whose keys a table is for; each pool has its own cap, so one never takes another's tables.
    enum Pool: Sendable {
        /// Keys from configured key sets and certificate chains (the issuers' keys).
        case keySets
        /// Keys a client chose: DPoP proofs' `jwk`s. A client cannot earn these with its own keys
        /// at the issuers' expense.
        case proofKeys

        /// The most tables alive at once in this pool; keys beyond it use `EVP_PKEY_verify`.
        var cap: Int {
            switch self {
            case .keySets: FixedBaseSlot.tableCap
            case .proofKeys: FixedBaseSlot.proofKeyTableCap
            }
        }

        /// Counts `delta` more tables alive in this pool; returns how many are alive now.
        @discardableResult
        fileprivate func count(_ delta: Int) -> Int {
            switch self {
            case .keySets: FixedBaseSlot.liveTables.wrappingAdd(delta, ordering: .relaxed).newValue
            case .proofKeys: FixedBaseSlot.liveProofKeyTables.wrappingAdd(delta, ordering: .relaxed).newValue
            }
        }
    }

    /// Verifications before a key earns its table (25 ms and about 150 KiB).
    static let threshold = 16
    /// The most tables alive at once for key sets' keys.
    package static let tableCap = 64
    /// The most tables alive at once for DPoP proof keys (about 2.4 MiB in all).
    package static let proofKeyTableCap = 16

    private static let liveTables = Atomic<Int>(0)
    private static let liveProofKeyTables = Atomic<Int>(0)
    private static let builtTables = Atomic<Int>(0)

    /// The pool this key's table counts in.
    let pool: Pool
    private let uses = Atomic<Int>(0)
    private let constructions = Atomic<Int>(0)
    private let table = AtomicLazyReference<FixedBaseP256Key>()

    /// A slot whose table, when built, counts in `pool`.
    init(pool: Pool = .keySets) { self.pool = pool }

    /// Key sets' tables alive now, and tables of every pool built since the process started.
    package static var tableCounts: (live: Int, built: Int) {
        (liveTables.load(ordering: .relaxed), builtTables.load(ordering: .relaxed))
    }

    /// DPoP proof keys' tables alive now.
    package static var proofKeyTablesLive: Int { liveProofKeyTables.load(ordering: .relaxed) }

    deinit {
        if table.load() != nil { pool.count(-1) }
    }

    /// How many times a table was built for this key (1 at most, unless ``buildNow(for:)`` met the
    /// threshold's builder).
    var buildCount: Int { constructions.load(ordering: .relaxed) }

    /// Whether the table is built (without counting a use).
    var isBuilt: Bool { table.load() != nil }

    /// The table, when built; otherwise counts this use and, at the threshold, starts building it
    /// in the background (this use, and those until it is ready, go through `EVP_PKEY_verify`).
    func fixedBase(for key: EVPPublicKey) -> FixedBaseP256Key? {
        if let ready = table.load() { return ready }
        // Past the threshold without a table (cap reached, unavailable, or being built): no more
        // counting, so a shared key adds no contended write per token.
        if uses.load(ordering: .relaxed) > Self.threshold { return nil }
        guard uses.wrappingAdd(1, ordering: .relaxed).newValue == Self.threshold else { return nil }
        DispatchQueue.global(qos: .utility).async { _ = self.build(for: key) }
        return nil
    }

    /// Builds the table now, ignoring the threshold (tests and key sets that want it at load);
    /// still bounded by ``tableCap`` and built at most once.
    func buildNow(for key: EVPPublicKey) -> FixedBaseP256Key? {
        if let ready = table.load() { return ready }
        guard uses.exchange(Self.threshold + 1, ordering: .relaxed) < Self.threshold else { return table.load() }
        return build(for: key)
    }

    private func build(for key: EVPPublicKey) -> FixedBaseP256Key? {
        uses.store(Self.threshold + 1, ordering: .relaxed)
        guard pool.count(1) <= pool.cap else {
            pool.count(-1)
            return nil
        }
        constructions.wrappingAdd(1, ordering: .relaxed)
        guard let point = key.octets("pub"), let built = FixedBaseP256Key(uncompressedPoint: point) else {
            pool.count(-1)
            return nil
        }
        Self.builtTables.wrappingAdd(1, ordering: .relaxed)
        let stored = table.storeIfNil(built)
        // Two claims can meet only between buildNow and the threshold; the loser's table is freed.
        if stored !== built { pool.count(-1) }
        return stored
    }
}
