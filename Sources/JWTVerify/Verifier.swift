import Synchronization

/// Verifies compact JWS tokens (JWTs) against a key set and a ``VerificationPolicy``.
///
/// Build one per configuration and call ``verify(_:nonce:at:)-(String,_,_)`` from any number of threads: it is
/// synchronous, holds no lock and keeps no state between calls. A token is either fully verified
/// (structure, header, key, signature, claim types, `iss`, `aud`, `exp`/`nbf`/`iat`, nonce, then
/// the policy's provider rules) or rejected with one ``VerificationError/Reason``; the checks run
/// in a fixed order, so the reason is always the first check that failed.
///
/// ```swift
/// let verifier = Verifier(
///     keys: try JWKSet(contentsOfFile: "apple-keys.json"),
///     policy: .appleIdentityToken(audiences: ["com.example.app"]))
/// let token = try verifier.verify(identityToken, nonce: rawNonce)
/// print(token.claims.subject ?? "", token.provider.emailVerified ?? false)
/// ```
public struct Verifier: Sendable {
    /// The keys tokens may be signed with.
    public let keys: JWKSet
    /// Everything else that decides a verdict.
    public let policy: VerificationPolicy

    let allowList: AlgorithmAllowList
    /// The accepted issuers' and audiences' bytes, compared without building strings.
    let issuerBytes: ExactByteSet?
    let audienceBytes: ExactByteSet?
    /// ``VerificationPolicy/capturedClaims``, `nil` when there are none (no reference to count per token).
    let capturedClaims: [ClaimPath]?
    /// ``VerificationPolicy/claimRules``, `nil` when there are none.
    let claimRules: [ClaimRule]?

    /// The verified-token cache, when this verifier was made with one (its ``VerifiedTokenCache/counters``
    /// are for metrics).
    public let cache: VerifiedTokenCache?
    /// Whether a key may take the fixed-base ES256 path (the benchmark reports its tables).
    package let hasP256Keys: Bool
    /// This verifier's own number, never given to another (``HeaderMemo`` entries are per verifier).
    let identity: UInt64
    /// Whether each thread's ``HeaderMemo`` may answer for this verifier's headers: always for key
    /// sets' tokens; for `x5c` ones only while the policy's chain verdicts cannot change.
    let memoizesHeaders: Bool
    /// The DPoP proofs this verifier accepted and still remembers (``DPoPReplayCache``), when its
    /// policy takes proofs (``VerificationPolicy/dpop``) and it records them in the process; `nil`
    /// when proofs are off or another ``proofRecorder`` was given.
    public let proofReplay: DPoPReplayCache?
    /// Where accepted DPoP proofs are recorded (``DPoPReplayRecorder``): ``proofReplay`` unless
    /// another recorder was given; `nil` when proofs are off.
    public let proofRecorder: (any DPoPReplayRecorder)?

    private static let identities = Atomic<UInt64>(0)

    /// A verifier applying `policy` with `keys`; only these keys are ever used, never keys named
    /// by a token.
    ///
    /// A key set with no usable key is accepted here (a service may be handed one before its
    /// keys arrive), and every token is then rejected, as `unknown_kid` or `key_alg_mismatch`;
    /// `jwtverify` refuses such a set at start instead (exit 65). Check
    /// `keys.keys.contains { $0.unusableReason == nil }` to refuse it yourself.
    ///
    /// - Parameters:
    ///   - keys: the only keys tokens may be verified with.
    ///   - policy: everything else that decides a verdict.
    ///   - cache: a verified-token cache of its own for this verifier (off by default). A hit
    ///     skips only the signature and what the token's bytes alone decide; see
    ///     ``VerifiedTokenCache``.
    ///   - proofRecorder: where accepted DPoP proofs are recorded, instead of a
    ///     ``DPoPReplayCache`` of this verifier's own (the default, `nil`): a store several
    ///     processes share. Unused when the policy takes no proofs.
    public init(
        keys: JWKSet, policy: VerificationPolicy, cache: VerifiedTokenCache.Configuration? = nil,
        proofRecorder: (any DPoPReplayRecorder)? = nil
    ) {
        self.init(
            keys: keys, policy: policy, sharedCache: cache.map(VerifiedTokenCache.init), proofRecorder: proofRecorder)
    }

    /// A verifier for App Store signed data (``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``),
    /// whose keys come from each token's certificate chain to the policy's pinned roots, not from
    /// a key set. Under any other policy it has no key, and every token is `unknown_kid`.
    public init(policy: VerificationPolicy) {
        self.init(keys: JWKSet(keys: []), policy: policy, sharedCache: nil)
    }

    /// A verifier using `sharedCache`, which must only ever serve verifiers with this same policy
    /// (a ``RemoteVerifier`` passes its cache to the verifier of each key-set generation).
    /// A ``RemoteVerifier`` passes its `proofReplay` (or its `proofRecorder`) too, so a refresh
    /// of the keys forgets no proof.
    package init(
        keys: JWKSet, policy: VerificationPolicy, sharedCache: VerifiedTokenCache?,
        proofReplay: DPoPReplayCache? = nil, proofRecorder: (any DPoPReplayRecorder)? = nil
    ) {
        self.keys = keys
        self.policy = policy
        self.cache = sharedCache
        let takesProofs = policy.dpop.takesProofs
        let ownCache =
            takesProofs && proofRecorder == nil
            ? proofReplay ?? DPoPReplayCache(capacity: policy.dpop.replayCapacity) : nil
        self.proofReplay = ownCache
        self.proofRecorder = takesProofs ? proofRecorder ?? ownCache : nil
        self.allowList = AlgorithmAllowList(policy.algorithms)
        self.issuerBytes = policy.issuers.map(ExactByteSet.init)
        self.audienceBytes = policy.audiences.map(ExactByteSet.init)
        self.capturedClaims = policy.capturedClaims.isEmpty ? nil : policy.capturedClaims
        self.claimRules = policy.claimRules.isEmpty ? nil : policy.claimRules
        self.hasP256Keys = keys.keys.contains { $0.key?.fixedBaseSlot != nil }
        self.identity = Self.identities.add(1, ordering: .relaxed).newValue
        self.memoizesHeaders = policy.rules.certificateChainKeys?.remembersChains ?? true
    }

    /// A verifier requiring `iss == issuer` and `aud` to name one of `audiences`, with no provider
    /// rules: `Verifier(keys:policy:)` with ``VerificationPolicy/init(issuers:audiences:algorithms:leeway:maxTokenBytes:clock:rules:keySource:nonceRequirement:)``.
    public init(
        keys: JWKSet,
        issuer: String,
        audiences: [String],
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed,
        leeway: Double = VerificationPolicy.defaultLeeway,
        maxTokenBytes: Int = VerificationPolicy.defaultMaxTokenBytes,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) {
        self.init(
            keys: keys,
            policy: VerificationPolicy(
                issuers: [issuer], audiences: audiences, algorithms: algorithms, leeway: leeway,
                maxTokenBytes: maxTokenBytes,
                clock: clock))
    }

    /// Verifies `token`.
    ///
    /// - Parameters:
    ///   - token: the compact JWS exactly as received (not trimmed).
    ///   - nonce: the raw nonce the app generated; when given, the token's `nonce` must be its
    ///     lowercase hex SHA-256. `nil` skips the nonce check.
    ///   - time: evaluate at this time (seconds since the epoch) instead of the policy's clock.
    /// - Returns: the verified token.
    /// - Throws: a ``VerificationError`` with the first failing check's reason.
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) throws(VerificationError)
        -> VerifiedToken
    {
        var token = token
        return try token.withUTF8 {
            evaluate(UnsafeRawBufferPointer($0), nonce: nonce, at: time.map(EvaluationTime.fixed) ?? .clock)
        }.get()
    }

    /// Verifies a token given as bytes (see ``verify(_:nonce:at:)-(String,_,_)``).
    public func verify(_ token: [UInt8], nonce: String? = nil, at time: Double? = nil) throws(VerificationError)
        -> VerifiedToken
    {
        try token.withUnsafeBytes { evaluate($0, nonce: nonce, at: time.map(EvaluationTime.fixed) ?? .clock) }.get()
    }

    /// Verifies borrowed token bytes with an optional raw nonce, as a `Result`, and applies the
    /// policy's DPoP rules to a request without a proof (``judgeProof(_:token:dpop:at:)``).
    package func evaluate(_ bytes: UnsafeRawBufferPointer, nonce: String?, at time: EvaluationTime) -> Result<
        VerifiedToken, VerificationError
    > {
        judgeProof(evaluateToken(bytes, nonce: nonce, at: time), token: bytes, dpop: nil, at: time)
    }

    /// The token's own checks, without the DPoP rules.
    func evaluateToken(_ bytes: UnsafeRawBufferPointer, nonce: String?, at time: EvaluationTime) -> Result<
        VerifiedToken, VerificationError
    > {
        guard var nonce else { return evaluateOne(bytes, rawNonce: nil, time: time) }
        // Through a pointer: a closure that captured `self` would copy the verifier (see TokenScratch).
        return withUnsafePointer(to: self) { verifier in
            nonce.withUTF8 { verifier.pointee.evaluateOne(bytes, rawNonce: UnsafeRawBufferPointer($0), time: time) }
        }
    }
}

/// When a token is evaluated.
package enum EvaluationTime: Sendable {
    /// Now, by the policy's clock.
    case clock
    /// At this time, in seconds since the epoch.
    case fixed(Double)
    /// At the token's own `iat` ("was it valid when issued?"); a token without one is `claim_type`.
    case issuedAt

    /// Whether the time is given (`--now`, `at:`) rather than the clock's or the token's.
    var isFixed: Bool { if case .fixed = self { true } else { false } }
}
