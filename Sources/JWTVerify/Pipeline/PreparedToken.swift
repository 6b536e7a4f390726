/// One token after the pipeline's first stage (prepare), as the signature stage and the walk see
/// it: split once, header read once, key chosen once, segments decoded once.
///
/// It borrows the token's bytes and the scratch its segments were decoded into; both outlive the
/// three stages of one call and no more.
struct PreparedToken {
    /// Where the token stands between the stages.
    enum Stage {
        /// Header valid, key chosen, segments decoded: the signature stage comes next.
        case awaitingSignature
        /// The signature holds: the walk reads the payload next.
        case signed
        /// Rejected at or before the signature; the walk only hands the reason on.
        case rejected(VerificationError)
        /// A verified-token cache hit: the walk re-runs what depends on time, nonce and keys.
        case cached(VerifiedTokenCache.Entry)
        /// Decided whole by a walk of its own (an Apple notification body, unwrapped to its JWS).
        case decided(Result<VerifiedToken, VerificationError>)
        /// The same bytes as an earlier token of the batch that the cache missed: the walk asks the
        /// cache again once that one is done (a hit when it verified), so a batch full of one
        /// token pays for one verification, as a run of single calls would.
        case repeatOf(Int)
    }

    /// The token's bytes as received.
    let token: UnsafeRawBufferPointer
    var stage: Stage
    /// The token's segments (meaningful once ``isSplit``).
    var jws = CompactJWS(header: 0..<0, payload: 0..<0, signature: 0..<0)
    /// Whether the token split into three segments.
    var isSplit = false
    /// The validated header.
    var header = JOSEHeader(algorithm: .rs256, keyID: nil)
    /// The chosen key's position in the key set.
    var keyIndex = 0
    /// App Store signed data: the key of the `x5c` leaf, once its chain is trusted (instead of
    /// ``keyIndex``).
    var certificateKey: EVPPublicKey?
    /// ...and the interval in which its chain's certificates are all valid, judged in the walk.
    var certificateValidity: ClosedRange<Double>?
    /// Room for the decoded segments (at least the token's length).
    var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// The decoded payload, within ``scratch``, once decoded.
    var payloadRange: Range<Int>?
    /// The decoded signature, within ``scratch``.
    var signatureRange = 0..<0
    /// The cache slot of a token the cache missed: a success is stored there.
    var cacheHash: UInt64?
    /// What was decoded on the way, when the caller traces.
    var trace = WalkTrace()

    init(_ token: UnsafeRawBufferPointer, stage: Stage = .awaitingSignature) {
        self.token = token
        self.stage = stage
    }

    /// The decoded payload, once decoded.
    var payload: UnsafeRawBufferPointer? { payloadRange.map { UnsafeRawBufferPointer(rebasing: scratch[$0]) } }

    /// The decoded signature.
    var signature: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: scratch[signatureRange]) }

    /// The bytes the signature covers: the token's own `header.payload`.
    var signingInput: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: token[jws.signingInput]) }

    /// Whether the signature stage has this token to check.
    var awaitsSignature: Bool { if case .awaitingSignature = stage { true } else { false } }
}
