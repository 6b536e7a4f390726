internal import CCryptoMB
internal import CRSAMontgomery
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Intel's crypto_mb, the signature stage's multi-buffer engine: eight RSA public operations per
/// call in AVX-512 IFMA lanes, when this process finds the library and the CPU has what it needs.
/// With crypto_mb 2.3, each RSA key's Montgomery constants are kept between calls
/// (``keepsKeyConstants``, ``KeptConstants``).
///
/// Found once per process, in this order: `JWTVERIFY_CRYPTO_MB` (a path to `libcrypto_mb.so.13`
/// or to the folder holding it and its runtime libraries; `off` disables it), ``defaultFolder``
/// (where `make deps` installs it), then the system's library path. Without it every signature
/// is checked as before, one at a time.
///
/// Opening it takes a few milliseconds (its runtime libraries are large), so the signature stage
/// does not wait for it: the first batch that has lanes to fill starts the search on another thread
/// (``isReady``) and checks its signatures with each key's own chain meanwhile, as it does when
/// nothing is found. A run that never has lanes to fill never opens it. ``isLoaded`` waits.
package enum MultiBufferEngine {
    /// Where `make deps` installs the pinned crypto_mb and its runtime libraries.
    package static let defaultFolder = "/usr/local/lib/jwtverify/crypto-mb"

    private static let state: (loaded: Bool, message: String) = {
        let setting = getenv("JWTVERIFY_CRYPTO_MB").map { String(cString: $0) }
        var message = [CChar](repeating: 0, count: Int(JWTV_MB_MESSAGE_MAX))
        let loaded = jwtv_mb_load(setting, defaultFolder, &message) == 1
        phase.store(loaded ? Phase.loaded : Phase.absent, ordering: .releasing)
        return (loaded, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }()

    /// Where the search stands: ``Phase``'s values.
    private static let phase = Atomic<UInt8>(Phase.unasked)

    /// The search's phases, as ``phase`` holds them.
    private enum Phase {
        static let unasked: UInt8 = 0
        static let searching: UInt8 = 1
        static let loaded: UInt8 = 2
        static let absent: UInt8 = 3
    }

    /// Whether the engine is loaded and this CPU can run it; searches first if no one has (waiting
    /// for a search under way).
    package static var isLoaded: Bool { state.loaded }

    /// Whether the engine is loaded, without waiting: the first call starts the search on another
    /// thread and answers `false`, as every call does until the search has found it.
    package static var isReady: Bool {
        switch phase.load(ordering: .acquiring) {
        case Phase.loaded:
            return true
        case Phase.unasked:
            if phase.compareExchange(expected: Phase.unasked, desired: Phase.searching, ordering: .relaxed).exchanged {
                DispatchQueue.global(qos: .userInitiated).async { _ = state }
            }
            return false
        default:
            return false
        }
    }

    /// Whether the engine may take signatures: `false` only once a search has found none.
    static var mayBeLoaded: Bool { phase.load(ordering: .relaxed) != Phase.absent }

    /// Whether the loaded engine also computes ES256's u1·G, eight signatures per call (see
    /// ``FixedBaseP256Key``); `false` when nothing is loaded.
    package static var multipliesP256Generator: Bool { state.loaded && jwtv_mb_has_p256_base() == 1 }

    /// The engine's name for reports: `crypto_mb` or `openssl`.
    package static var name: String { state.loaded ? "crypto_mb" : "openssl" }

    /// What the search found: the library and its version, or why none is used.
    package static var description: String { state.message }

    /// The fewest RS256/RS384/RS512 signatures of one modulus size worth a call: below this the
    /// key's own chain (about 11 µs each) is cheaper than eight lanes (about 28 µs per call).
    package static let minimumLanes = 3

    /// The modulus size, when the engine takes this RSA chain key (e = 65537; 1024–4096 bits).
    static func lanes(for chain: OpaquePointer) -> Int? {
        guard jwtv_mb_takes_rsa_key(chain) == 1 else { return nil }
        return Int(jwtv_rsa_key_bits(chain))
    }

    /// The modulus size, when the engine would take this RSA chain key and a search has not found
    /// it absent: the plan groups such signatures into lanes, and runs them only when ``isReady``.
    static func plannedLanes(for chain: OpaquePointer) -> Int? {
        guard mayBeLoaded, jwtv_mb_fits_rsa_key(chain) == 1 else { return nil }
        return Int(jwtv_rsa_key_bits(chain))
    }

    /// Up to eight verifications, lane by lane (see `jwtv_mb_rsa_verify8`): `keys[i]` nil for an
    /// unused lane; every key of `bits` bits.
    static func verify8(
        keys: UnsafeMutablePointer<OpaquePointer?>, signatures: UnsafeMutablePointer<UnsafeRawPointer?>,
        kinds: UnsafeMutablePointer<jwtv_rsa_digest>,
        digests: UnsafeMutablePointer<UnsafeRawPointer?>, digestLengths: UnsafeMutablePointer<Int>, bits: Int,
        valid: UnsafeMutablePointer<UInt8>
    ) {
        jwtv_mb_rsa_verify8(keys, signatures, kinds, digests, digestLengths, Int32(bits), valid)
    }

    /// The signature stage's entry: the 1…8 signatures of `batch`, every one of a `bits`-bit key
    /// the engine takes, in one call; lanes past the batch's count are cleared to unused.
    static func verify(_ batch: SignatureBatch, bits: Int) {
        precondition((1...8).contains(batch.count), "a multi-buffer call of \(batch.count)")
        batch.clear(from: batch.count, to: 8)
        verify8(
            keys: batch.keys, signatures: batch.signatures, kinds: batch.kinds, digests: batch.digests,
            digestLengths: batch.digestLengths, bits: bits, valid: batch.valid)
    }
}
