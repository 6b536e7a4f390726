/// What a provider offers whose tokens bring their key in their header's `x5c` chain (App Store
/// signed data) instead of naming one of a key set: a profile that conforms gets no key set, and
/// the pipeline asks it for each token's key and for when the chain is judged. A capability of
/// the few providers that have it, not a requirement of every profile.
package protocol CertificateChainKeys: Sendable {
    /// The key of `leaf` (the standard base64 of `x5c[0]`), once `leaf` ← `intermediate`
    /// (`x5c[1]`) leads to a pinned root by every rule but the validity periods, with the interval
    /// in which the chain is valid; or the reason it is refused.
    func chainKey(leaf: String, intermediate: String) -> Result<
        (key: EVPPublicKey, validity: ClosedRange<Double>),
        VerificationError
    >
    /// Whether the chain is judged at the current time (online checks) rather than at the token's
    /// own instant.
    var judgesChainNow: Bool { get }
    /// Whether a chain's verdict, key and validity, once had, stay the same (validated chains are
    /// remembered and no online check asks again): then each thread remembers them with the header
    /// text that carried the chain.
    var remembersChains: Bool { get }
    /// Whether a chain valid over `validity` was valid at `instant`: `nil`, or the reason.
    func judge(_ validity: ClosedRange<Double>, at instant: Double) -> VerificationError?
}
