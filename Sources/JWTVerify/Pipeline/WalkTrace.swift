/// What the pipeline decoded on a token's way, beside its verdict: for the tooling's records and
/// reports, which build fingerprints and lenient reads of rejected payloads from it.
///
/// Filled only when the caller asks for it (`tracing`); the library's own calls leave it empty
/// and pay nothing. For a verified token the verified values are in the token itself; the trace
/// adds only ``emailVerified`` and ``evaluatedAt``.
package struct WalkTrace {
    /// The header's `alg` as written, when it is a string.
    package var algorithm: String?
    /// The header's `kid` as written, when it is a string.
    package var keyID: String?
    /// A rejected token's registered claims, when the walk read its payload (read without the
    /// type rules when those failed).
    package var claims: RegisteredClaims?
    /// `email_verified` as a boolean or "true"/"false", when the walk read the payload.
    package var emailVerified: Bool?
    /// The time the token was evaluated at, when the walk got that far.
    package var evaluatedAt: Double?
    /// SHA-256 of the whole token, when fingerprints were asked for and the signature stage
    /// hashed the signing input with SHA-256: continued from that state, not hashed again.
    package var fingerprint: SHA256Digest?
    /// Whether the token split into three segments and was then rejected by the JWS layer
    /// (header, segments, key or signature) before its payload was read: a report may read that
    /// payload without trust.
    package var stoppedAtJWSLayer = false
    /// The decoded payload of such a token, when it split and its payload segment decodes (even
    /// when its header was refused): valid only inside the call that hands out the trace.
    package var unverifiedPayload: UnsafeRawBufferPointer?
    /// The decoded header, when this call decoded it (not when this thread's header memo for the
    /// verifier answered: a verifier's first token always decodes it): for `inspect`. Valid only
    /// inside the call that hands out the trace.
    package var header: UnsafeRawBufferPointer?
    /// The decoded payload of a token whose signature held (the walk read it): for `inspect`.
    /// Valid only inside the call that hands out the trace.
    package var payload: UnsafeRawBufferPointer?

    /// An empty trace.
    package init() {}
}
