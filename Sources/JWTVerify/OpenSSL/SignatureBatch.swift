internal import CRSAMontgomery

/// Room for one batch engine call (``FixedBaseP256Key/verify(_:)``,
/// ``MultiBufferEngine/verify(_:bits:)``): the parallel arrays the C calls take (keys, signatures,
/// digests, digest lengths and kinds, verdicts) and room for the digests themselves.
///
/// Each thread's batch workspace keeps one, emptied, filled and run call after call, so the
/// signature stage allocates nothing per token. The signatures it points to are borrowed for the call.
final class SignatureBatch {
    /// The most signatures one call takes (the fixed-base batch limit; the engine takes eight).
    static let capacity = FixedBaseP256Key.batchLimit
    /// Octets of digest room per signature: SHA-512's.
    static let digestStride = 64

    /// The signatures added since ``removeAll()``.
    private(set) var count = 0
    /// The C key of each signature's engine (``SignatureEngine/batchKey``); `nil` for an unused lane.
    let keys = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: capacity)
    /// Each signature's octets.
    let signatures = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: capacity)
    /// Each signature's digest, in ``nextDigest`` room.
    let digests = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: capacity)
    /// Each digest's length.
    let digestLengths = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
    /// Each RS* signature's digest kind (SHA-256 for the others: unread).
    let kinds = UnsafeMutablePointer<jwtv_rsa_digest>.allocate(capacity: capacity)
    /// Each verdict after the call: 1 valid, 0 not.
    let valid = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    private let digestRoom = UnsafeMutableRawPointer.allocate(byteCount: capacity * digestStride, alignment: 8)

    init() {}

    deinit {
        keys.deallocate()
        signatures.deallocate()
        digests.deallocate()
        digestLengths.deallocate()
        kinds.deallocate()
        valid.deallocate()
        digestRoom.deallocate()
    }

    /// Empties the batch for the next call.
    func removeAll() { count = 0 }

    /// Where the next signature's digest goes (``digestStride`` octets), before ``append(_:engine:digestLength:algorithm:)``.
    var nextDigest: UnsafeMutableRawBufferPointer {
        precondition(count < Self.capacity, "a signature batch of more than \(Self.capacity)")
        return UnsafeMutableRawBufferPointer(start: digestRoom + count * Self.digestStride, count: Self.digestStride)
    }

    /// Adds a signature that `engine` checks, whose digest (`digestLength` octets) was written
    /// into ``nextDigest``.
    func append(
        _ signature: UnsafeRawBufferPointer, engine: SignatureEngine, digestLength: Int, algorithm: SignatureAlgorithm
    ) {
        precondition(count < Self.capacity, "a signature batch of more than \(Self.capacity)")
        keys[count] = engine.batchKey
        signatures[count] = signature.baseAddress
        digests[count] = UnsafeRawPointer(digestRoom + count * Self.digestStride)
        digestLengths[count] = digestLength
        kinds[count] = RSAMontgomeryKey.digestKind(algorithm) ?? JWTV_RSA_SHA256
        valid[count] = 0
        count += 1
    }

    /// Adds a signature whose 32-octet digest the caller keeps for the call (the package's own
    /// fixed-base batch entry).
    func append(key: OpaquePointer, signature: UnsafeRawPointer, digest: UnsafeRawPointer) {
        precondition(count < Self.capacity, "a signature batch of more than \(Self.capacity)")
        keys[count] = key
        signatures[count] = signature
        digests[count] = digest
        digestLengths[count] = 32
        kinds[count] = JWTV_RSA_SHA256
        valid[count] = 0
        count += 1
    }

    /// Marks the slots `start..<end` unused (a multi-buffer call's empty lanes).
    func clear(from start: Int, to end: Int) {
        for slot in start..<end {
            keys[slot] = nil
            signatures[slot] = nil
            digests[slot] = nil
            digestLengths[slot] = 0
            kinds[slot] = JWTV_RSA_SHA256
            valid[slot] = 0
        }
    }

    /// Whether the `index`-th signature verified, once the call ran.
    func isValid(_ index: Int) -> Bool { valid[index] == 1 }
}
