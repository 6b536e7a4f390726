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
        guard let target = URL(string: url), Self.isAllowed(target) else {
            return .failed("refused URL \(url): only https, or http to a loopback address")
        }
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: connectTimeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        let fetch = FetchDelegate(maximumBytes: maximumBytes, maximumRedirects: maximumRedirects)
        return await withCheckedContinuation { continuation in
            SharedSession.shared.start(request, fetch: fetch, continuation: continuation, totalTimeout: totalTimeout)
        }
    }

    /// https anywhere; http only to loopback.
    static func isAllowed(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
        default: return false
        }
    }

    /// Whether a redirect from `from` to `to` may be followed (never https → http).
    static func mayRedirect(from: URL?, to: URL?) -> Bool {
        guard let to, isAllowed(to) else { return false }
        return !(from?.scheme?.lowercased() == "https" && to.scheme?.lowercased() != "https")
    }

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

/// The one `URLSession` of the process. A session costs a few hundred bytes that
/// FoundationNetworking never returns, and `serve` fetches keys for months, so every fetch shares
/// this one. Its delegate hands each task's events to that fetch's ``FetchDelegate``.
private final class SharedSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = SharedSession()

    // Safety: `fetches` is guarded by `lock`; `session` is set once, in init.
    private let lock = NSLock()
    private var fetches: [Int: FetchDelegate] = [:]
    private var session: URLSession!

    private override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        // Per-fetch limits: the request's own timeout (connect and reads) and the fetch's watchdog.
        configuration.timeoutIntervalForResource = 300
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func start(_ request: URLRequest, fetch: FetchDelegate, continuation: CheckedContinuation<KeySetFetchResult, Never>, totalTimeout: Double) {
        let task = session.dataTask(with: request)
        lock.withLock { fetches[task.taskIdentifier] = fetch }
        fetch.start(task, continuation: continuation, totalTimeout: totalTimeout)
    }

    private func fetch(for task: URLSessionTask) -> FetchDelegate? { lock.withLock { fetches[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let fetch = fetch(for: dataTask) else { return completionHandler(.cancel) }
        fetch.received(response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        fetch(for: dataTask)?.received(data, task: dataTask)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let fetch = fetch(for: task) else { return completionHandler(nil) }
        fetch.redirect(to: request, task: task, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let fetch = lock.withLock { fetches.removeValue(forKey: task.taskIdentifier) }
        fetch?.completed(error: error)
    }
}

/// Collects one response, enforcing the size cap and the redirect rules, and resumes the caller once.
private final class FetchDelegate: @unchecked Sendable {
    // Safety: all mutable state is guarded by `lock`.
    private let lock = NSLock()
    private let maximumBytes: Int
    private let maximumRedirects: Int
    private var body: [UInt8] = []
    private var response: HTTPURLResponse?
    private var problem: String?
    private var redirects = 0
    private var continuation: CheckedContinuation<KeySetFetchResult, Never>?
    private var task: URLSessionTask?

    init(maximumBytes: Int, maximumRedirects: Int) {
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
    }


    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<KeySetFetchResult, Never>, totalTimeout: Double) {
        lock.withLock {
            self.continuation = continuation
            self.task = task
        }
        task.resume()
        // A watchdog in case the transport does not enforce the total timeout itself.
        DispatchQueue.global().asyncAfter(deadline: .now() + totalTimeout + 0.5) { [weak self] in
            self?.finish(.failed("timed out after \(totalTimeout) s"))
            task.cancel()
        }
    }

    private func finish(_ result: KeySetFetchResult) {
        let waiting = lock.withLock { () -> CheckedContinuation<KeySetFetchResult, Never>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: result)
    }

    func received(_ response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 || http.statusCode == 304 else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            lock.withLock { problem = problem ?? "HTTP status \(status)" }
            completionHandler(.cancel)
            return
        }
        if http.expectedContentLength > Int64(maximumBytes) {
            lock.withLock { problem = "body of \(http.expectedContentLength) octets is over the \(maximumBytes)-octet limit" }
            completionHandler(.cancel)
            return
        }
        lock.withLock { self.response = http }
        completionHandler(.allow)
    }

    func received(_ data: Data, task dataTask: URLSessionDataTask) {
        let over = lock.withLock { () -> Bool in
            body.append(contentsOf: data)
            if body.count > maximumBytes {
                problem = "body is over the \(maximumBytes)-octet limit"
                body = []
                return true
            }
            return false
        }
        if over { dataTask.cancel() }
    }

    func redirect(to request: URLRequest, task: URLSessionTask, completionHandler: @escaping (URLRequest?) -> Void) {
        let allowed = lock.withLock { () -> Bool in
            redirects += 1
            if redirects > maximumRedirects {
                problem = "more than \(maximumRedirects) redirects"
                return false
            }
            if !HTTPKeySetFetcher.mayRedirect(from: task.currentRequest?.url ?? task.originalRequest?.url, to: request.url) {
                problem = "redirect to \(request.url?.absoluteString ?? "?") refused (never https to http, never off loopback for http)"
                return false
            }
            return true
        }
        completionHandler(allowed ? request : nil)
        if !allowed { task.cancel() }
    }

    func completed(error: (any Error)?) {
        let (response, body, problem) = lock.withLock { (self.response, self.body, self.problem) }
        if let problem {
            finish(.failed(problem))
        } else if let error {
            finish(.failed(error.localizedDescription))
        } else if let response {
            let maxAge = HTTPKeySetFetcher.maxAge(response.value(forHTTPHeaderField: "Cache-Control"))
            if response.statusCode == 304 {
                finish(.notModified(maxAge: maxAge))
            } else {
                finish(
                    .document(
                        body: body, maxAge: maxAge, etag: response.value(forHTTPHeaderField: "ETag"),
                        lastModified: response.value(forHTTPHeaderField: "Last-Modified")))
            }
        } else {
            finish(.failed("no response"))
        }
    }
}
