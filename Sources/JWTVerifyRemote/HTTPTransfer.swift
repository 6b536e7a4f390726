import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The limits every request of this module runs under.
struct HTTPTransferLimits: Sendable {
    /// Longest wait for the connection and for each read.
    var connectTimeout: Double
    /// Longest time for the whole exchange: past it the call ends, answered or not.
    var totalTimeout: Double
    /// Largest body accepted, in octets (checked against `Content-Length` and while it streams in).
    var maximumBytes: Int
    /// Most redirects followed (never https to http, never off loopback for http).
    var maximumRedirects: Int
}

/// What came back: the status, the headers and the whole body (within the cap).
struct HTTPReply: Sendable {
    let status: Int
    let body: [UInt8]
    private let headers: [String: String]

    init(_ response: HTTPURLResponse, body: [UInt8]) {
        status = response.statusCode
        self.body = body
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields { headers[name.lowercased()] = value }
        self.headers = headers
    }

    /// A header's value, by case-insensitive name.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no reply came. The descriptions name what happened, never what was sent.
enum HTTPTransferFailure: Error, Sendable, CustomStringConvertible {
    /// The URL is neither https nor http to loopback.
    case refusedURL(String)
    /// No answer within the total time-out (or the connection's).
    case timedOut(Double)
    /// The connection could not be made or broke.
    case connection(String)
    /// The body is over the cap.
    case tooLarge(Int)
    /// A redirect that may not be followed.
    case redirectRefused(String)

    var description: String {
        switch self {
        case .refusedURL(let url): "refused URL \(url): only https, or http to a loopback address"
        case .timedOut(let seconds): "timed out after \(seconds) s"
        case .connection(let why): why
        case .tooLarge(let limit): "body is over the \(limit)-octet limit"
        case .redirectRefused(let why): why
        }
    }
}

/// One HTTP request and its whole reply over the process's one `URLSession`, within
/// ``HTTPTransferLimits``. URLSession's own cache is off, so validators and 304s are seen as the
/// origin sent them.
enum HTTPTransfer {
    /// Sends `request` (its URL must be https, or http to loopback) and waits for the reply.
    static func perform(_ request: URLRequest, limits: HTTPTransferLimits) async -> Result<HTTPReply, HTTPTransferFailure> {
        guard let url = request.url, isAllowed(url) else { return .failure(.refusedURL(request.url?.absoluteString ?? "?")) }
        var request = request
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        request.timeoutInterval = limits.connectTimeout
        let transfer = TransferDelegate(limits: limits)
        return await withCheckedContinuation { continuation in
            SharedSession.shared.start(request, transfer: transfer, continuation: continuation)
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
}

/// The one `URLSession` of the process. A session costs a few hundred bytes that
/// FoundationNetworking never returns, and `serve` fetches keys for months, so every request shares
/// this one. Its delegate hands each task's events to that request's ``TransferDelegate``.
private final class SharedSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    static let shared = SharedSession()

    // Safety: `transfers` is guarded by `lock`; `session` is set once, in init.
    private let lock = NSLock()
    private var transfers: [Int: TransferDelegate] = [:]
    private var session: URLSession!

    private override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        // Per-request limits: the request's own timeout (connect and reads) and the transfer's watchdog.
        configuration.timeoutIntervalForResource = 300
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func start(
        _ request: URLRequest, transfer: TransferDelegate, continuation: CheckedContinuation<Result<HTTPReply, HTTPTransferFailure>, Never>
    ) {
        let task = session.dataTask(with: request)
        lock.withLock { transfers[task.taskIdentifier] = transfer }
        transfer.start(task, continuation: continuation)
    }

    private func transfer(for task: URLSessionTask) -> TransferDelegate? { lock.withLock { transfers[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let transfer = transfer(for: dataTask) else { return completionHandler(.cancel) }
        transfer.received(response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.received(data, task: dataTask)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let transfer = transfer(for: task) else { return completionHandler(nil) }
        transfer.redirect(to: request, task: task, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = lock.withLock { transfers.removeValue(forKey: task.taskIdentifier) }
        transfer?.completed(error: error)
    }
}

/// Collects one reply, enforcing the size cap and the redirect rules, and resumes the caller once.
private final class TransferDelegate: @unchecked Sendable {
    // Safety: all mutable state is guarded by `lock`.
    private let lock = NSLock()
    private let limits: HTTPTransferLimits
    private var body: [UInt8] = []
    private var response: HTTPURLResponse?
    private var problem: HTTPTransferFailure?
    private var redirects = 0
    private var continuation: CheckedContinuation<Result<HTTPReply, HTTPTransferFailure>, Never>?

    init(limits: HTTPTransferLimits) { self.limits = limits }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Result<HTTPReply, HTTPTransferFailure>, Never>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
        // The total time-out: the transport enforces only the idle one.
        let seconds = limits.totalTimeout
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.finish(.failure(.timedOut(seconds)))
            task.cancel()
        }
    }

    private func finish(_ result: Result<HTTPReply, HTTPTransferFailure>) {
        let waiting = lock.withLock { () -> CheckedContinuation<Result<HTTPReply, HTTPTransferFailure>, Never>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: result)
    }

    func received(_ response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else {
            lock.withLock { problem = problem ?? .connection("not an HTTP response") }
            return completionHandler(.cancel)
        }
        if http.expectedContentLength > Int64(limits.maximumBytes) {
            lock.withLock { problem = .tooLarge(limits.maximumBytes) }
            return completionHandler(.cancel)
        }
        lock.withLock { self.response = http }
        completionHandler(.allow)
    }

    func received(_ data: Data, task dataTask: URLSessionDataTask) {
        let over = lock.withLock { () -> Bool in
            body.append(contentsOf: data)
            guard body.count > limits.maximumBytes else { return false }
            problem = .tooLarge(limits.maximumBytes)
            body = []
            return true
        }
        if over { dataTask.cancel() }
    }

    func redirect(to request: URLRequest, task: URLSessionTask, completionHandler: @escaping (URLRequest?) -> Void) {
        let allowed = lock.withLock { () -> Bool in
            redirects += 1
            if redirects > limits.maximumRedirects {
                problem = .redirectRefused(
                    limits.maximumRedirects == 0 ? "redirect refused (this endpoint is never redirected)" : "more than \(limits.maximumRedirects) redirects")
                return false
            }
            if !HTTPTransfer.mayRedirect(from: task.currentRequest?.url ?? task.originalRequest?.url, to: request.url) {
                problem = .redirectRefused(
                    "redirect to \(request.url?.absoluteString ?? "?") refused (never https to http, never off loopback for http)")
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
            finish(.failure(problem))
        } else if let error {
            let code = (error as? URLError)?.code
            finish(.failure(code == .timedOut ? .timedOut(limits.connectTimeout) : .connection(error.localizedDescription)))
        } else if let response {
            finish(.success(HTTPReply(response, body: body)))
        } else {
            finish(.failure(.connection("no response")))
        }
    }
}
