package import JWTVerify
import Synchronization

/// The fetcher of a key set found by discovery: each fetch reads the issuer's metadata document
/// (when its own lifetime is over), checks it, then fetches the `jwks_uri` it names.
///
/// It is a `KeySetFetcher` under a `RemoteKeySet`, so every rule of the key cache holds
/// unchanged: the cache decides when a fetch happens (refresh-ahead, one unknown-`kid` refresh
/// per cooldown, single flight, the pause after a failure), and keeps its last good keys when a
/// fetch fails. This type adds only the document:
///
/// - `ISSUER/.well-known/openid-configuration` first; on **404 or 410 only** (the issuer does not
///   publish it), RFC 8414's `/.well-known/oauth-authorization-server` (see
///   `DiscoveryLocations`). Every other failure — a time-out, a refused connection, a 5xx, any
///   other status, an over-long answer, a refused redirect, a document that fails its checks —
///   fails the fetch: no fallback, no keys from it.
/// - The document is checked by `DiscoveryDocument` and bounded by `maximumDocumentBytes`
///   (decoded octets, like every remote read); the key set by the fetcher's own limits.
/// - The document is kept for its `Cache-Control: max-age`, clamped by the same
///   `KeyCachePolicy`, and revalidated with its ETag: a fetch while it is current goes straight
///   to the key set. A failed document read keeps nothing new and fails the fetch.
/// - The cache's validators are sent to the key set only when they came from the same
///   `jwks_uri`, so a document that moves the key set never gets a 304 for another URL's keys.
package final class DiscoveringKeySetFetcher: KeySetFetcher {
    /// The configured issuer, compared byte for byte with the document's.
    package let issuer: String
    /// The two well-known URLs of `issuer`; `nil` when it cannot be discovered.
    package let locations: DiscoveryLocations?
    /// Largest document accepted, in decoded octets.
    package let maximumDocumentBytes: Int
    private let refusal: DiscoveryRefusal?
    private let fetcher: HTTPKeySetFetcher
    private let policy: KeyCachePolicy
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    /// The document last accepted, and where the cache's validators came from.
    private struct State {
        var document: Discovered?
        var keysValidators: (url: String, etag: String?, lastModified: String?)?
    }

    /// An accepted document: where it came from, what it names, how long it holds.
    private struct Discovered {
        let location: String
        let keySetURL: String
        var expiresAt: Double
        let etag: String?
        let lastModified: String?
    }

    /// A fetcher for `issuer`'s keys over `fetcher`'s limits.
    package init(
        issuer: String, fetcher: HTTPKeySetFetcher, policy: KeyCachePolicy, maximumDocumentBytes: Int,
        clock: @escaping @Sendable () -> Double
    ) {
        self.issuer = issuer
        self.fetcher = fetcher
        self.policy = policy
        self.maximumDocumentBytes = maximumDocumentBytes
        self.clock = clock
        do {
            locations = try DiscoveryLocations(issuer: issuer)
            refusal = nil
        } catch {
            locations = nil
            refusal = error
        }
    }

    /// The key set `jwks_uri` names, after the document when it is due. `url` (the issuer, as
    /// the cache names its key set) is not fetched.
    package func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult {
        let keySetURL: String
        switch await discover() {
        case .success(let found): keySetURL = found
        case .failure(let refusal): return .failed(refusal.description)
        }
        let validators = state.withLock { state -> (etag: String?, lastModified: String?) in
            guard let own = state.keysValidators, exactlyEquals(own.url, keySetURL), exactlyEquals(own.etag, etag),
                exactlyEquals(own.lastModified, lastModified)
            else { return (nil, nil) }
            return (etag, lastModified)
        }
        let result = await fetcher.fetch(keySetURL, etag: validators.etag, lastModified: validators.lastModified)
        switch result {
        case .document(_, _, let newETag, let newLastModified):
            state.withLock { $0.keysValidators = (keySetURL, newETag, newLastModified) }
        case .notModified:
            break
        case .failed(let description):
            return .failed("jwks_uri \(keySetURL): \(description)")
        }
        return result
    }

    /// The current document's `jwks_uri`: the kept one while current, else read again.
    private func discover() async -> Result<String, DiscoveryRefusal> {
        guard let locations else { return .failure(refusal!) }
        let now = clock()
        let kept = state.withLock { $0.document }
        if let kept, now < kept.expiresAt { return .success(kept.keySetURL) }
        var answers: [String] = []
        for location in [locations.openIDConfiguration, locations.authorizationServerMetadata] {
            let revalidating = kept.flatMap { exactlyEquals($0.location, location) ? $0 : nil }
            var request = HTTPOutgoing(url: location)
            request.setHeader("Accept", "application/json")
            if let etag = revalidating?.etag { request.setHeader("If-None-Match", etag) }
            if let lastModified = revalidating?.lastModified { request.setHeader("If-Modified-Since", lastModified) }
            let limits = HTTPTransferLimits(
                connectTimeout: fetcher.connectTimeout, totalTimeout: fetcher.totalTimeout + 0.5,
                maximumBytes: maximumDocumentBytes, maximumRedirects: fetcher.maximumRedirects)
            let outcome = await HTTPTransfer.perform(request, limits: limits)
            if case .success(let reply) = outcome, reply.status == 404 || reply.status == 410 {
                answers.append("\(location) answered \(reply.status)")
                continue
            }
            let now = clock()
            switch HTTPKeySetFetcher.result(of: outcome) {
            case .notModified(let maxAge):
                guard var revalidated = revalidating else {
                    return .failure(
                        .noDocument(answers: answers + ["\(location) answered 304 to an unconditional request"]))
                }
                revalidated.expiresAt = now + policy.ttl(maxAge: maxAge)
                state.withLock { $0.document = revalidated }
                return .success(revalidated.keySetURL)
            case .document(let body, let maxAge, let etag, let lastModified):
                let document: DiscoveryDocument
                do {
                    document = try DiscoveryDocument(json: body, issuer: issuer)
                } catch {
                    return .failure(error)
                }
                state.withLock {
                    $0.document = Discovered(
                        location: location, keySetURL: document.keySetURL, expiresAt: now + policy.ttl(maxAge: maxAge),
                        etag: etag, lastModified: lastModified)
                }
                return .success(document.keySetURL)
            case .failed(let description):
                return .failure(.noDocument(answers: answers + ["\(location): \(description)"]))
            }
        }
        return .failure(.noDocument(answers: answers))
    }
}

extension DiscoveryRefusal {
    /// No document, with what each URL tried answered.
    fileprivate static func noDocument(answers: [String]) -> DiscoveryRefusal {
        .noDocument(answers.joined(separator: "; "))
    }
}
