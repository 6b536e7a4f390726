public import JWTVerify

extension RemoteKeySet {
    /// The key set an issuer names in its metadata (OpenID Connect Discovery 1.0, else RFC 8414),
    /// fetched over HTTPS with `HTTPKeySetFetcher` and kept current like any remote key set.
    ///
    /// ```swift
    /// let issuer = "https://login.example.com/tenant-1"
    /// let verifier = RemoteVerifier(
    ///     keySet: .discovering(issuer: issuer), policy: .oidc(issuer: issuer, audiences: ["api"]))
    /// let token = try await verifier.verify(bearer)
    /// ```
    ///
    /// Each fetch of the keys first reads `issuer + "/.well-known/openid-configuration"` (any
    /// terminating `/` of the issuer removed) when the document's own lifetime is over; **only
    /// when that answers 404 or 410** does it read RFC 8414's URL, where
    /// `/.well-known/oauth-authorization-server` goes between the host and the issuer's path
    /// (`https://login.example.com/.well-known/oauth-authorization-server/tenant-1`). A time-out,
    /// a refused connection, a 5xx or any other answer fails the fetch without a fallback.
    ///
    /// The document must be a JSON object of at most `maximumDocumentBytes` decoded octets whose
    /// `issuer` is exactly `issuer`'s bytes (never Unicode equivalence: `"é"` precomposed and
    /// decomposed are two issuers) and whose `jwks_uri` is `https://` (`http://` only to a
    /// loopback address, the rule of every remote read). Otherwise the fetch fails, closed: no
    /// keys come from it, tokens are refused `jwks_unavailable`, and `lastFailure` says why
    /// ("discovery document's issuer … is not the configured issuer …"). Keys fetched earlier keep
    /// serving for the policy's stale window, as for any origin that fails.
    ///
    /// The document is kept for its `Cache-Control: max-age` clamped by `policy` and revalidated
    /// with its ETag; the keys follow every rule of `RemoteKeySet` (refresh-ahead, the
    /// unknown-`kid` refresh and its cooldown, single flight, stale-if-error, the snapshot). The
    /// key set's `url` is `issuer`, which also names its snapshot.
    ///
    /// - Parameters:
    ///   - issuer: the issuer, exactly as tokens carry it in `iss`: `https://` (or `http://` to
    ///     loopback, for tests), with a host, without a query or a fragment.
    ///   - fetcher: the limits of both reads (time-outs, redirects; its `maximumBytes` caps the key set).
    ///   - policy: how long the document and the keys are kept.
    ///   - snapshotDirectory: where to keep an on-disk snapshot of the keys.
    ///   - maximumDocumentBytes: the largest document accepted, in decoded octets (default 64 KiB).
    ///   - clock: the time source (seconds since the epoch).
    public static func discovering(
        issuer: String, fetcher: HTTPKeySetFetcher = HTTPKeySetFetcher(), policy: KeyCachePolicy = KeyCachePolicy(),
        snapshotDirectory: String? = nil, maximumDocumentBytes: Int = 64 * 1024,
        clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) -> RemoteKeySet {
        let discovering = DiscoveringKeySetFetcher(
            issuer: issuer, fetcher: fetcher, policy: policy, maximumDocumentBytes: maximumDocumentBytes, clock: clock)
        return RemoteKeySet(
            url: issuer, fetcher: discovering, policy: policy, snapshotDirectory: snapshotDirectory, clock: clock)
    }
}
