/// What a DPoP proof is remembered by: the SHA-256 of its key's RFC 7638 thumbprint, a zero
/// octet and its `jti`, so that two clients' `jti`s never collide and a `jti` of any length or
/// content becomes 32 octets (64 hex digits in a shared store's key).
public struct DPoPReplayKey: Sendable, Hashable {
    let digest: SHA256Digest

    /// The key from its digest.
    package init(_ digest: SHA256Digest) { self.digest = digest }

    /// The 32 octets in lowercase hex.
    public var hex: String { digest.hex }
}
