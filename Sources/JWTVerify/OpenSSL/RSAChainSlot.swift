import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// When an RSA key gets its Montgomery chain (``RSAMontgomeryKey``): at the first RS256, RS384 or
/// RS512 verification that uses the key, built once, off the verifying threads (a background
/// queue; every thread keeps using `EVP_PKEY_verify` until it is ready).
///
/// Building costs about one verification's work (47 µs for a 2,048-bit key), so importing a key
/// set costs nothing extra, and a hostile document of 10,000 large keys cannot make its import
/// expensive: each key's chain is paid only when a token that passed the key lookup uses it.
///
/// The verifying path reads one atomic word, and never a reference count the threads share: once
/// built, the word holds the chain's address, unretained: the chain is kept beside it for the key's life.
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

    /// The chain once built (unretained: this slot keeps it); `nil` while it is being built (the
    /// first call starts that, in the background), or when the key cannot have one.
    func readyChain(for key: EVPPublicKey) -> Unmanaged<RSAMontgomeryKey>? {
        let value = word.load(ordering: .acquiring)
        if value > Self.refused, let address = UnsafeRawPointer(bitPattern: value) {
            return Unmanaged.fromOpaque(address)
        }
        guard value == Self.untried,
            word.compareExchange(expected: Self.untried, desired: Self.building, ordering: .relaxed).exchanged
        else { return nil }
        DispatchQueue.global(qos: .utility).async { key.rsaChainSlot.build(for: key) }
        return nil
    }

    /// Builds the chain (this slot is `building`) and publishes it, or marks the key refused.
    func build(for key: EVPPublicKey) {
        guard let built = key.makeRSAChain() else {
            word.store(Self.refused, ordering: .releasing)
            return
        }
        owner.withLock { $0 = built }
        word.store(UInt(bitPattern: Unmanaged.passUnretained(built).toOpaque()), ordering: .releasing)
    }

    /// The chain itself, built now on this thread if no one has started it, else waited for
    /// (tests, the benchmark's raw limit, the engine's test lanes); `nil` when the key cannot have one.
    func chain(for key: EVPPublicKey) -> RSAMontgomeryKey? {
        if word.compareExchange(expected: Self.untried, desired: Self.building, ordering: .relaxed).exchanged {
            build(for: key)
        }
        while word.load(ordering: .acquiring) == Self.building { sched_yield() }
        return owner.withLock { $0 }
    }
}
