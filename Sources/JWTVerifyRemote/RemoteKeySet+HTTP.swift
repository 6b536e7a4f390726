public import JWTVerify

extension RemoteKeySet {
    /// A key set fetched over HTTPS from `url` (or a preset's URL) with ``HTTPKeySetFetcher``.
    ///
    /// ```swift
    /// let apple = RemoteKeySet.https(KeySetSource.apple.description, snapshotDirectory: "/var/cache/myapp")
    /// let verifier = RemoteVerifier(keySet: apple, issuer: "https://appleid.apple.com", audiences: ["com.example.app"])
    /// let token = try await verifier.verify(identityToken, nonce: rawNonce)
    /// ```
    public static func https(
        _ url: String, fetcher: HTTPKeySetFetcher = HTTPKeySetFetcher(), policy: KeyCachePolicy = KeyCachePolicy(),
        snapshotDirectory: String? = nil
    ) -> RemoteKeySet {
        RemoteKeySet(url: url, fetcher: fetcher, policy: policy, snapshotDirectory: snapshotDirectory)
    }
}
