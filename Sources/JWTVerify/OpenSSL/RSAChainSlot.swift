import Synchronization

/// When an RSA key gets its Montgomery chain (``RSAMontgomeryKey``): at the first RS256, RS384 or
/// RS512 verification that uses the key, built once by that thread (others keep using
/// `EVP_PKEY_verify` meanwhile).
///
/// Building costs about one verification's work (47 µs for a 2,048-bit key), so importing a key
/// set costs nothing extra, and a hostile document of 10,000 large keys cannot make its import
/// expensive: each key's chain is paid only when a token that passed the key lookup uses it.
///
/// The verifying path reads one atomic word, and never a reference count the threads share: once
/// built, the word holds the chain's C key, owned by the chain kept beside it for the key's life.
struct RSAChainSlot: ~Copyable, Sendable {
    private static let untried: UInt = 0
    private static let building: UInt = 1
    private static let refused: UInt = 2

    private let word: Atomic<UInt>
    private let owner = Mutex<RSAMontgomeryKey?>(nil)

    /// A slot for a key that may have a chain (`eligible`), or one that never will.
    init(eligible: Bool) { word = Atomic(eligible ? Self.untried : Self.refused) }

    /// Whether the chain is built (without building it).
    var isBuilt: Bool { word.load(ordering: .acquiring) > Self.refused }

    /// The chain's C key (`jwtv_rsa_key *`), built by this call when no thread has tried yet;
    /// `nil` while another thread builds it, or when the key cannot have one.
    func chainKey(for key: EVPPublicKey) -> OpaquePointer? {
        let value = word.load(ordering: .acquiring)
        if value > Self.refused { return OpaquePointer(bitPattern: value) }
        guard value == Self.untried, word.compareExchange(expected: Self.untried, desired: Self.building, ordering: .relaxed).exchanged
        else { return nil }
        guard let built = key.makeRSAChain() else {
            word.store(Self.refused, ordering: .releasing)
            return nil
        }
        owner.withLock { $0 = built }
        word.store(UInt(bitPattern: built.pointer), ordering: .releasing)
        return built.pointer
    }

    /// The chain itself, built now if no thread has tried yet, waiting for a thread that is
    /// building it (tests, the benchmark's raw limit); `nil` when the key cannot have one.
    func chain(for key: EVPPublicKey) -> RSAMontgomeryKey? {
        _ = chainKey(for: key)
        while word.load(ordering: .acquiring) == Self.building {}
        return owner.withLock { $0 }
    }
}
