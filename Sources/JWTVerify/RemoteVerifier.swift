import Dispatch
import Synchronization

/// Verifies tokens against a ``RemoteKeySet`` that keeps itself current, under a
/// ``VerificationPolicy``: the same checks, order and reasons as ``Verifier``, whose keys are the
/// remote set's current snapshot.
///
/// ``verify(_:nonce:at:)`` is async only for one reason: a token whose `kid` the cached keys lack
/// may wait for the single, rate-limited refresh that could bring that key (key rotation). Routine
/// refreshes happen in the background; ``verifyWithoutWaiting(_:nonce:at:)`` never waits at all.
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

    /// A verifier applying `policy` to tokens signed by the keys of `keySet`.
    ///
    /// - Parameters:
    ///   - keySet: the remote key set, kept current by its own cache rules.
    ///   - policy: everything else that decides a verdict.
    ///   - cache: a verified-token cache (off by default). It lives across key refreshes; an
    ///     entry whose key rotated away or changed is no longer a hit.
    public init(keySet: RemoteKeySet, policy: VerificationPolicy, cache: VerifiedTokenCache.Configuration? = nil) {
        self.keySet = keySet
        self.policy = policy
        self.cache = cache.map(VerifiedTokenCache.init)
    }

    /// Verifies `token`; on an unknown `kid`, waits for at most one key refresh and tries again.
    /// Throws `jwks_unavailable` when no keys can be had at all.
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) async throws(VerificationError) -> VerifiedToken {
        if keySet.currentKeysAndGeneration().keys == nil { await keySet.load() }
        let first = Result { () throws(VerificationError) in try verifyWithoutWaiting(token, nonce: nonce, at: time) }
        guard case .failure(let error) = first, Self.namesUnknownKey(error) else { return try first.get() }
        guard await keySet.refreshForUnknownKeyID() else { throw error }
        return try verifyWithoutWaiting(token, nonce: nonce, at: time)
    }

    /// The one rule for a key the set lacks, for every face that waits for a refresh (this
    /// verifier, its batches, `serve`'s `/auth`, `/verify` and `/notifications`): a rejection as
    /// `unknown_kid` is worth one rate-limited refresh.
    package static func namesUnknownKey(_ reason: VerificationError.Reason) -> Bool { reason == .unknownKeyID }

    /// ``namesUnknownKey(_:)-(VerificationError.Reason)`` for an error.
    package static func namesUnknownKey(_ error: VerificationError) -> Bool { namesUnknownKey(error.reason) }

    /// For callers on a thread of their own (a server's handler, which may block): `attempt` over
    /// the current verifier; when `namesUnknownKey` says its outcome names a `kid` the keys lack,
    /// this thread waits for at most one rate-limited refresh (the same one ``verify(_:nonce:at:)``
    /// waits for) and `attempt` runs again over the new keys. `jwks_unavailable` without keys.
    package func withCurrentVerifierBlocking<T>(
        namesUnknownKey: (T) -> Bool, _ attempt: (Verifier) -> T
    ) -> Result<T, VerificationError> {
        let first: T
        do { first = attempt(try currentVerifier()) } catch { return .failure(error) }
        guard namesUnknownKey(first) else { return .success(first) }
        let refreshed = RefreshOutcome()
        let done = DispatchSemaphore(value: 0)
        let keySet = self.keySet
        Task {
            refreshed.set(await keySet.refreshForUnknownKeyID())
            done.signal()
        }
        done.wait()
        guard refreshed.value else { return .success(first) }
        do { return .success(attempt(try currentVerifier())) } catch { return .failure(error) }
    }

    /// Verifies `token` with the keys at hand, never waiting on the network.
    public func verifyWithoutWaiting(_ token: String, nonce: String? = nil, at time: Double? = nil) throws(VerificationError) -> VerifiedToken {
        try currentVerifier().verify(token, nonce: nonce, at: time)
    }

    /// The verifier over the current keys; `jwks_unavailable` when there are none.
    package func currentVerifier() throws(VerificationError) -> Verifier {
        let (keys, generation) = keySet.currentKeysAndGeneration()
        guard let keys else {
            throw VerificationError(.keySetUnavailable, detail: "no keys from \(keySet.url)" + (keySet.lastFailure.map { ": \($0)" } ?? ""))
        }
        return current.withLock { current -> Verifier in
            if let current, current.generation == generation { return current.verifier }
            let verifier = Verifier(keys: keys, policy: policy, sharedCache: cache)
            current = (generation, verifier)
            return verifier
        }
    }
}

/// Whether a refresh brought new keys, handed from the refreshing task to the waiting thread.
private final class RefreshOutcome: @unchecked Sendable {
    // Safety: written by the task before it signals the semaphore, read after the wait.
    private(set) var value = false
    func set(_ value: Bool) { self.value = value }
}
