import Synchronization

/// Verifies tokens against a ``RemoteKeySet`` that keeps itself current.
///
/// ``verify(_:nonce:at:)`` is async only for one reason: a token whose `kid` the cached keys lack
/// may wait for the single, rate-limited refresh that could bring that key (key rotation). Routine
/// refreshes happen in the background; ``verifyWithoutWaiting(_:nonce:at:)`` never waits at all.
public final class RemoteVerifier: Sendable {
    /// The key source.
    public let keySet: RemoteKeySet
    private let issuer: String
    private let audiences: [String]
    private let algorithms: Set<SignatureAlgorithm>
    private let leeway: Double
    private let maxTokenBytes: Int
    private let clock: @Sendable () -> Double
    /// The verifier for the current keys, rebuilt when the key set changes.
    private let current = Mutex<(generation: Int, verifier: Verifier)?>(nil)
    /// The provider profile, when built with one.
    private let profile: Profile?
    private let currentProfile = Mutex<(generation: Int, verifier: ProfileVerifier)?>(nil)

    /// A verifier with the same policy parameters as ``Verifier``, over remote keys.
    public init(
        keySet: RemoteKeySet, issuer: String, audiences: [String],
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed, leeway: Double = Verifier.defaultLeeway,
        maxTokenBytes: Int = Verifier.defaultMaxTokenBytes, clock: @escaping @Sendable () -> Double = Verifier.systemClock
    ) {
        self.keySet = keySet
        self.issuer = issuer
        self.audiences = audiences
        self.algorithms = algorithms
        self.leeway = leeway
        self.maxTokenBytes = maxTokenBytes
        self.clock = clock
        self.profile = nil
    }

    /// A verifier applying a provider `profile` (issuer, algorithms, rules) over remote keys; use
    /// ``verifyProfile(_:nonce:at:)``.
    ///
    /// ```swift
    /// let apple = RemoteVerifier(profile: .apple(), audiences: ["com.example.app"], keySet: appleKeys)
    /// let user = try await apple.verifyProfile(identityToken, nonce: rawNonce)
    /// ```
    public init(
        profile: Profile, audiences: [String] = [], keySet: RemoteKeySet, leeway: Double = Verifier.defaultLeeway,
        maxTokenBytes: Int = Verifier.defaultMaxTokenBytes, clock: @escaping @Sendable () -> Double = Verifier.systemClock
    ) {
        self.keySet = keySet
        self.issuer = profile.issuers.first ?? ""
        self.audiences = profile.project.map { [$0] } ?? audiences
        self.algorithms = profile.algorithms
        self.leeway = leeway
        self.maxTokenBytes = maxTokenBytes
        self.clock = clock
        self.profile = profile
    }

    /// Verifies `token` under the profile given at construction; like ``verify(_:nonce:at:)``, it
    /// waits for at most one refresh on an unknown `kid`. Calling it on a verifier built without a
    /// profile is a programming error (a precondition failure).
    public func verifyProfile(_ token: String, nonce: String? = nil, at time: Double? = nil) async throws(VerificationError) -> ProfileToken {
        if keySet.currentKeysAndGeneration().keys == nil { await keySet.load() }
        do {
            return try currentProfileVerifier().verify(token, nonce: nonce, at: time)
        } catch where error.reason == .unknownKeyID {
            guard await keySet.refreshForUnknownKeyID() else { throw error }
            return try currentProfileVerifier().verify(token, nonce: nonce, at: time)
        }
    }

    private func currentProfileVerifier() throws(VerificationError) -> ProfileVerifier {
        guard let profile else { preconditionFailure("verifyProfile needs a RemoteVerifier made with init(profile:audiences:keySet:)") }
        let (keys, generation) = keySet.currentKeysAndGeneration()
        guard let keys else {
            throw VerificationError(.keySetUnavailable, detail: "no keys from \(keySet.url)" + (keySet.lastFailure.map { ": \($0)" } ?? ""))
        }
        return currentProfile.withLock { current -> ProfileVerifier in
            if let current, current.generation == generation { return current.verifier }
            let verifier = ProfileVerifier(
                profile: profile, keys: keys, audiences: audiences, leeway: leeway, maxTokenBytes: maxTokenBytes, clock: clock)
            current = (generation, verifier)
            return verifier
        }
    }

    /// Verifies `token`; on an unknown `kid`, waits for at most one key refresh and tries again.
    /// Throws `jwks_unavailable` when no keys can be had at all.
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) async throws(VerificationError) -> VerifiedToken {
        if keySet.currentKeysAndGeneration().keys == nil { await keySet.load() }
        do {
            return try verifyWithoutWaiting(token, nonce: nonce, at: time)
        } catch where error.reason == .unknownKeyID {
            guard await keySet.refreshForUnknownKeyID() else { throw error }
            return try verifyWithoutWaiting(token, nonce: nonce, at: time)
        }
    }

    /// Verifies `token` with the keys at hand, never waiting on the network.
    public func verifyWithoutWaiting(_ token: String, nonce: String? = nil, at time: Double? = nil) throws(VerificationError) -> VerifiedToken {
        guard let verifier = currentVerifier() else {
            throw VerificationError(
                .keySetUnavailable, detail: "no keys from \(keySet.url)" + (keySet.lastFailure.map { ": \($0)" } ?? ""))
        }
        return try verifier.verify(token, nonce: nonce, at: time)
    }

    private func currentVerifier() -> Verifier? {
        let (keys, generation) = keySet.currentKeysAndGeneration()
        guard let keys else { return nil }
        return current.withLock { current -> Verifier in
            if let current, current.generation == generation { return current.verifier }
            let verifier = Verifier(
                keys: keys, issuer: issuer, audiences: audiences, algorithms: algorithms, leeway: leeway,
                maxTokenBytes: maxTokenBytes, clock: clock)
            current = (generation, verifier)
            return verifier
        }
    }
}
