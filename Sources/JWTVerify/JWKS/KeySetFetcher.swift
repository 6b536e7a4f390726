/// Fetches a key-set document: an HTTP GET, conditional when validators are given.
///
/// `JWTVerifyRemote` provides the `URLSession` implementation; tests can supply their own.
public protocol KeySetFetcher: Sendable {
    /// Fetches `url`, sending `If-None-Match`/`If-Modified-Since` from `etag`/`lastModified`.
    func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult
}

/// The outcome of one fetch.
public enum KeySetFetchResult: Sendable {
    /// 200: the body and the caching headers.
    case document(body: [UInt8], maxAge: Double?, etag: String?, lastModified: String?)
    /// 304: the cached document is still current.
    case notModified(maxAge: Double?)
    /// Anything else (network error, timeout, other status, oversized body), described.
    case failed(String)
}
