import Synchronization

/// Verifies tokens against a ``RemoteKeySet`` that keeps itself current, under a
/// ``VerificationPolicy``: the same checks, order and reasons as ``Verifier``, whose keys are the
/// remote set's current snapshot.
///
/// ``verify(_:nonce:at:)`` is async only for one reason: a token whose `kid` the cached keys lack
/// may wait for the single, rate-limited refresh that could bring that key (key rotation), and it
/// waits at most ``refreshWait`` seconds (250 ms by default): the fetch goes on in the background,
/// and a call that stopped waiting throws `jwks_unavailable`, so a slow key origin costs each
/// caller a bounded delay and never more. Routine refreshes happen in the background;
/// ``verifyWithoutWaiting(_:nonce:at:)`` never waits at all.
///
/// ```swift
/// let apple = RemoteVerifier(keySet: appleKeys, policy: .appleIdentityToken(audiences: ["com.example.app"]))
/// let user = try await apple.verify(identityToken, nonce: rawNonce)
/// ```
public final class RemoteVerifier: Sendable {
    /// The key source.
    public let keySet: RemoteKeySet
    /// Everything else that decides a verdict.
    public let policy: VerificationPolicy
    /// The verifier for the current keys, rebuilt when the key set changes.
    private let current = Mutex<(generation: Int, verifier: Verifier)?>(nil)

    /// The verified-token cache shared by the verifiers of every key-set generation, if any.
    public let cache: VerifiedTokenCache?

    /// The DPoP proofs accepted and still remembered, shared by the verifiers of every key-set
    /// generation, when the policy takes proofs (``Verifier/proofReplay``).
    public let proofReplay: DPoPReplayCache?
    /// Where accepted DPoP proofs are recorded, for every key-set generation's verifier
    /// (``Verifier/proofRecorder``): ``proofReplay`` unless another recorder was given.
    public let proofRecorder: (any DPoPReplayRecorder)?

    /// Longest wait, in seconds, for the refresh an unknown `kid` starts (the fetch itself may run
    /// longer, in the background).
    public let refreshWait: Double

    /// A verifier applying `policy` to tokens signed by the keys of `keySet`.
    ///
    /// - Parameters:
    ///   - keySet: the remote key set, kept current by its own cache rules.
    ///   - policy: everything else that decides a verdict.
    ///   - cache: a verified-token cache (off by default). It lives across key refreshes; an
    ///     entry whose key rotated away or changed is no longer a hit.
    ///   - refreshWait: longest wait, in seconds, for the refresh an unknown `kid` starts (0.25 by
    ///     default; 0 never waits).
    ///   - proofRecorder: where accepted DPoP proofs are recorded, instead of a
    ///     ``DPoPReplayCache`` of this verifier's own (the default, `nil`): a store several
    ///     processes share. Unused when the policy takes no proofs.
    public init(
        keySet: RemoteKeySet, policy: VerificationPolicy, cache: VerifiedTokenCache.Configuration? = nil,
        refreshWait: Double = 0.25, proofRecorder: (any DPoPReplayRecorder)? = nil
    ) {
        self.keySet = keySet
        self.policy = policy
        self.cache = cache.map(VerifiedTokenCache.init)
        let takesProofs = policy.dpop.takesProofs
        let ownCache =
            takesProofs && proofRecorder == nil ? DPoPReplayCache(capacity: policy.dpop.replayCapacity) : nil
        self.proofReplay = ownCache
        self.proofRecorder = takesProofs ? proofRecorder ?? ownCache : nil
        self.refreshWait = max(0, refreshWait)
    }

    /// Verifies `token`; on an unknown `kid`, waits up to ``refreshWait`` for at most one key
    /// refresh and tries again. Throws `jwks_unavailable` when no keys can be had at all (the first
    /// call waits for the start-up fetch, within the fetcher's own time-outs), or when the refresh
    /// is still running after ``refreshWait``; `unknown_kid` when it ended without that key.
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) async throws(VerificationError)
        -> VerifiedToken
    {
        if keySet.currentKeysAndGeneration().keys == nil { await keySet.load() }
        let first = Result { () throws(VerificationError) in try verifyWithoutWaiting(token, nonce: nonce, at: time) }
        guard case .failure(let error) = first, Self.namesUnknownKey(error) else { return try first.get() }
        try await waitForRefresh(after: error)
        return try verifyWithoutWaiting(token, nonce: nonce, at: time)
    }

    /// Starts the refresh an unknown `kid` is worth and waits for it up to ``refreshWait``:
    /// returns when it brought other keys; rethrows `error` when none may start or it brought
    /// nothing new; `jwks_unavailable` when it is still running.
    func waitForRefresh(after error: VerificationError) async throws(VerificationError) {
        guard let refresh = keySet.beginRefreshForUnknownKeyID() else { throw error }
        switch await refresh.outcome(within: refreshWait) {
        case true?: return
        case false?: throw error
        case nil: throw Self.refreshStillRunning(keySet, waited: refreshWait)
        }
    }

    /// `jwks_unavailable` for a request that stopped waiting for a refresh still under way.
    package static func refreshStillRunning(_ keySet: RemoteKeySet, waited seconds: Double) -> VerificationError {
        VerificationError(
            .keySetUnavailable, detail: "the key refresh from \(keySet.url) is still running after \(seconds) s")
    }

    /// The one rule for a key the set lacks, for every face that waits for a refresh (this
    /// verifier, its batches, `serve`'s `/auth`, `/verify` and `/notifications`): a rejection as
    /// `unknown_kid` is worth one rate-limited refresh.
    package static func namesUnknownKey(_ reason: VerificationError.Reason) -> Bool { reason == .unknownKeyID }

    /// ``namesUnknownKey(_:)-(VerificationError.Reason)`` for an error.
    package static func namesUnknownKey(_ error: VerificationError) -> Bool { namesUnknownKey(error.reason) }

    /// For a server's handler, which must not wait: `attempt` over the current verifier; when
    /// `mayRefresh` and `namesUnknownKey` says its outcome names a `kid` the keys lack, the one
    /// rate-limited refresh is started (or joined) and returned beside the outcome, for the caller
    /// to wait on as it can. `jwks_unavailable` without keys.
    package func withCurrentVerifier<T>(
        mayRefresh: Bool, namesUnknownKey: (T) -> Bool, _ attempt: (Verifier) -> T
    ) -> Result<(T, KeyRefresh?), VerificationError> {
        let first: T
        do { first = attempt(try currentVerifier()) } catch { return .failure(error) }
        guard mayRefresh, namesUnknownKey(first) else { return .success((first, nil)) }
        return .success((first, keySet.beginRefreshForUnknownKeyID()))
    }

    /// Verifies `token` with the keys at hand, never waiting on the network.
    public func verifyWithoutWaiting(_ token: String, nonce: String? = nil, at time: Double? = nil)
        throws(VerificationError) -> VerifiedToken
    {
        try currentVerifier().verify(token, nonce: nonce, at: time)
    }

    /// The verifier over the current keys; `jwks_unavailable` when there are none.
    package func currentVerifier() throws(VerificationError) -> Verifier {
        let (keys, generation) = keySet.currentKeysAndGeneration()
        guard let keys else {
            throw VerificationError(
                .keySetUnavailable, detail: "no keys from \(keySet.url)" + (keySet.lastFailure.map { ": \($0)" } ?? ""))
        }
        return current.withLock { current -> Verifier in
            if let current, current.generation == generation { return current.verifier }
            let verifier = Verifier(
                keys: keys, policy: policy, sharedCache: cache, proofReplay: proofReplay, proofRecorder: proofRecorder)
            current = (generation, verifier)
            return verifier
        }
    }
}
