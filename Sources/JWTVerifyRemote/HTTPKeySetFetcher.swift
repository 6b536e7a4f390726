import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import JWTVerify

/// Fetches key-set documents over HTTPS with `URLSession` (FoundationNetworking on Linux).
///
/// Only `https://` URLs are fetched, plus `http://` to loopback addresses (for tests). Connect and
/// total timeouts are enforced, the body is capped while it streams in, only 200 and 304 are
/// accepted, redirects are bounded and never go from https to http, and URLSession's own cache is
/// off so that validators and 304s are seen as the origin sent them.
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
    public init(connectTimeout: Double = 2, totalTimeout: Double = 5, maximumBytes: Int = 1 << 20, maximumRedirects: Int = 3) {
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
        var request = URLRequest(url: target)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        let limits = HTTPTransferLimits(
            connectTimeout: connectTimeout, totalTimeout: totalTimeout + 0.5, maximumBytes: maximumBytes, maximumRedirects: maximumRedirects)
        switch await HTTPTransfer.perform(request, limits: limits) {
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
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.first == "no-cache" || parts.first == "no-store" { return 0 }
            if parts.first == "max-age", parts.count == 2, let seconds = Double(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                result = seconds
            }
        }
        return result
    }
}
