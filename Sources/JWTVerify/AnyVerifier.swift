/// A verifier over keys at hand (``Verifier``) or over a remote key set that keeps itself
/// current (``RemoteVerifier``): what a component holds when either will do, such as a
/// ``NotificationReceiver``, a `serve` route or a Sign in with Apple client's identity tokens.
///
/// ```swift
/// let verifier: AnyVerifier =
///     keyFile.map { .local(Verifier(keys: $0, policy: policy)) }
///     ?? .remote(RemoteVerifier(keySet: appleKeys, policy: policy))
/// let token = try await verifier.verify(identityToken, nonce: rawNonce)
/// ```
public enum AnyVerifier: Sendable {
    /// Keys at hand: never waits.
    case local(Verifier)
    /// A remote key set's keys: may wait for the one rate-limited refresh an unknown `kid` starts.
    case remote(RemoteVerifier)

    /// Everything but the keys that decides a verdict.
    public var policy: VerificationPolicy {
        switch self {
        case .local(let verifier): verifier.policy
        case .remote(let verifier): verifier.policy
        }
    }

    /// Whether keys are at hand to verify with: always for a local verifier; for a remote set once
    /// it holds keys (fetched, or from its snapshot).
    public var hasKeys: Bool {
        switch self {
        case .local: true
        case .remote(let verifier): verifier.keySet.currentKeys() != nil
        }
    }

    /// The verified-token cache, if the verifier keeps one.
    public var cache: VerifiedTokenCache? {
        switch self {
        case .local(let verifier): verifier.cache
        case .remote(let verifier): verifier.cache
        }
    }

    /// Verifies `token` as ``Verifier/verify(_:nonce:at:)-(String,_,_)`` does, or, over a remote
    /// set, as ``RemoteVerifier/verify(_:nonce:at:)`` does (waiting at most its `refreshWait` for a
    /// key it lacks).
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) async throws(VerificationError)
        -> VerifiedToken
    {
        switch self {
        case .local(let verifier): try verifier.verify(token, nonce: nonce, at: time)
        case .remote(let verifier): try await verifier.verify(token, nonce: nonce, at: time)
        }
    }

    /// The same keys under `policy`, without a cache: a local verifier over the same key set, or
    /// a remote one over the same remote set with the same `refreshWait`.
    package func with(policy: VerificationPolicy) -> AnyVerifier {
        switch self {
        case .local(let verifier): .local(Verifier(keys: verifier.keys, policy: policy))
        case .remote(let verifier):
            .remote(RemoteVerifier(keySet: verifier.keySet, policy: policy, refreshWait: verifier.refreshWait))
        }
    }
}
