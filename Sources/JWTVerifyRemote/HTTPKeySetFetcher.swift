import FoundationEssentials
public import JWTVerify

/// Fetches key-set documents over HTTPS with libcurl.
///
/// Only `https://` URLs are fetched, plus `http://` to loopback addresses (for tests). Connect and
/// total timeouts are enforced; the body is capped in decoded octets while it streams in (gzip is
/// asked for and undone on the way, so a compressed bomb stops at the cap) and the response head at
/// 64 KiB; only 200 and 304 are accepted; redirects are bounded and never go from https to http; and
/// no cache sits in between, so validators and 304s are seen as the origin sent them.
public struct HTTPKeySetFetcher: KeySetFetcher {
    /// Longest wait for the connection and for each read.
    public var connectTimeout: Double
    /// Longest time for the whole fetch.
    public var totalTimeout: Double
    /// Largest body accepted, in octets.
    public var maximumBytes: Int
    /// Most redirects followed.
    public var maximumRedirects: Int

    /// A fetcher with the given limits (defaults: 2 s, 5 s, 1 MiB, 3 redirects).
    public init(
        connectTimeout: Double = 2, totalTimeout: Double = 5, maximumBytes: Int = 1 << 20, maximumRedirects: Int = 3
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
    }

    /// Fetches `url` (conditionally, when validators are given).
    public func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult {
        guard let target = URL(string: url), HTTPTransfer.isAllowed(target) else {
            return .failed(HTTPTransferFailure.refusedURL(url).description)
        }
        var request = HTTPOutgoing(url: url)
        request.setHeader("Accept", "application/json")
        if let etag { request.setHeader("If-None-Match", etag) }
        if let lastModified { request.setHeader("If-Modified-Since", lastModified) }
        let limits = HTTPTransferLimits(
            connectTimeout: connectTimeout, totalTimeout: totalTimeout + 0.5, maximumBytes: maximumBytes,
            maximumRedirects: maximumRedirects)
        return Self.result(of: await HTTPTransfer.perform(request, limits: limits))
    }

    /// What a transfer's outcome means for the cache: 304, 200 with its validators, or a failure.
    static func result(of outcome: Result<HTTPReply, HTTPTransferFailure>) -> KeySetFetchResult {
        switch outcome {
        case .failure(let failure):
            return .failed(failure.description)
        case .success(let reply) where reply.status == 304:
            return .notModified(maxAge: Self.maxAge(reply.header("Cache-Control")))
        case .success(let reply) where reply.status == 200:
            return .document(
                body: reply.body, maxAge: Self.maxAge(reply.header("Cache-Control")), etag: reply.header("ETag"),
                lastModified: reply.header("Last-Modified"))
        case .success(let reply):
            return .failed("HTTP status \(reply.status)")
        }
    }

    /// https anywhere; http only to loopback.
    static func isAllowed(_ url: URL) -> Bool { HTTPTransfer.isAllowed(url) }

    /// Whether a redirect from `from` to `to` may be followed (never https → http).
    static func mayRedirect(from: URL?, to: URL?) -> Bool { HTTPTransfer.mayRedirect(from: from, to: to) }

    /// `max-age` from a `Cache-Control` value (`no-cache`/`no-store` count as 0).
    static func maxAge(_ cacheControl: String?) -> Double? {
        guard let cacheControl else { return nil }
        var result: Double? = nil
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { HTTPFieldText.trimmed($0) }
            if parts.first == "no-cache" || parts.first == "no-store" { return 0 }
            if parts.first == "max-age", parts.count == 2,
                let seconds = Double(HTTPFieldText.trimmed(parts[1]) { $0 == "\"" }), seconds >= 0
            {
                result = seconds
            }
        }
        return result
    }
}
