public import JWTVerify

extension RemoteKeySet {
    /// A key set fetched over HTTPS from `url` with `HTTPKeySetFetcher`.
    ///
    /// ```swift
    /// let keys = RemoteKeySet.https("https://login.example.com/.well-known/jwks.json")
    /// let verifier = RemoteVerifier(keySet: keys, policy: .oidc(issuer: "https://login.example.com", audiences: ["api"]))
    /// let token = try await verifier.verify(bearer)
    /// ```
    public static func https(
        _ url: String, fetcher: HTTPKeySetFetcher = HTTPKeySetFetcher(), policy: KeyCachePolicy = KeyCachePolicy(),
        snapshotDirectory: String? = nil
    ) -> RemoteKeySet {
        RemoteKeySet(url: url, fetcher: fetcher, policy: policy, snapshotDirectory: snapshotDirectory)
    }

    /// A key set fetched over HTTPS with `HTTPKeySetFetcher` from a preset (``KeySetSource/apple``, ``KeySetSource/google``,
    /// ``KeySetSource/firebase``) or any ``KeySetSource/url(_:)``.
    ///
    /// ```swift
    /// let apple = RemoteKeySet.https(.apple, snapshotDirectory: "/var/cache/myapp")
    /// let verifier = RemoteVerifier(keySet: apple, policy: .appleIdentityToken(audiences: ["com.example.app"]))
    /// let token = try await verifier.verify(identityToken, nonce: rawNonce)
    /// ```
    ///
    /// A ``KeySetSource/file(_:)`` is not fetched: its fetches fail, and tokens are rejected as
    /// `jwks_unavailable`; load files with `JWKSet(contentsOfFile:)`.
    public static func https(
        _ source: KeySetSource, fetcher: HTTPKeySetFetcher = HTTPKeySetFetcher(),
        policy: KeyCachePolicy = KeyCachePolicy(),
        snapshotDirectory: String? = nil
    ) -> RemoteKeySet {
        https(source.description, fetcher: fetcher, policy: policy, snapshotDirectory: snapshotDirectory)
    }
}
