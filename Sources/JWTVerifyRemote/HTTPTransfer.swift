import CCurl
import FoundationEssentials
package import JWTVerify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The limits every request of this module runs under.
struct HTTPTransferLimits: Sendable {
    /// Longest wait for the connection, and longest stall (under one octet a second) after it.
    var connectTimeout: Double
    /// Longest time for the whole exchange: past it the call ends, answered or not.
    var totalTimeout: Double
    /// Largest body accepted, in octets after any content coding is undone: counted as libcurl
    /// decodes it, and the transfer is stopped at the first octet past it.
    var maximumBytes: Int
    /// Most redirects followed (never https to http, never off loopback for http).
    var maximumRedirects: Int
    /// Largest response head accepted (status line and every header line), in octets.
    var maximumHeaderBytes: Int = 64 * 1024
    /// Whether http goes to any host, not only to loopback: for OCSP, whose responders speak plain
    /// HTTP and whose answers are signed (and checked by JWTVerify).
    var plainHTTPAnywhere = false
}

/// One request to send: its method, URL, header fields and body.
struct HTTPOutgoing: Sendable {
    var method = "GET"
    var url: String
    /// Header fields in order; a name given twice is sent twice.
    var headers: [(name: String, value: String)] = []
    /// Sent when not `nil` (POST).
    var body: [UInt8]? = nil

    /// A GET of `url`.
    init(url: String) { self.url = url }

    /// Adds a header field.
    mutating func setHeader(_ name: String, _ value: String) { headers.append((name, value)) }
}

/// What came back: the status, the headers and the whole body (within the cap).
struct HTTPReply: Sendable {
    let status: Int
    let body: [UInt8]
    /// Header fields by lowercased name; a repeated one keeps the last value.
    private let headers: [String: String]

    init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// A header's value, by case-insensitive name.
    func header(_ name: String) -> String? { headers[HTTPHead.lowercased(name)] }
}

/// Why no reply came. The descriptions name what happened, never what was sent.
enum HTTPTransferFailure: Error, Sendable, CustomStringConvertible {
    /// The URL is neither https nor http to loopback.
    case refusedURL(String)
    /// No answer within the total time-out (or the connection's).
    case timedOut(Double)
    /// The answer stalled: under one octet a second for this many seconds.
    case stalled(Double)
    /// The connection could not be made or broke.
    case connection(String)
    /// The decoded body is over the cap.
    case tooLarge(Int)
    /// The response head is over its cap.
    case headersTooLarge(Int)
    /// A redirect that may not be followed.
    case redirectRefused(String)

    var description: String {
        switch self {
        case .refusedURL(let url): "refused URL \(url): only https, or http to a loopback address"
        case .timedOut(let seconds): "timed out after \(seconds) s"
        case .stalled(let seconds): "stalled: under one octet a second for \(seconds) s"
        case .connection(let why): why
        case .tooLarge(let limit): "body is over the \(limit)-octet limit"
        case .headersTooLarge(let limit): "response head is over the \(limit)-octet limit"
        case .redirectRefused(let why): why
        }
    }
}

/// One HTTP request and its whole reply, through libcurl, within ``HTTPTransferLimits``.
///
/// The body is counted as it is decoded and the transfer stops at the first octet past the cap,
/// so a compressed bomb costs at most the cap plus libcurl's own buffers (a few tens of
/// kilobytes); so does an endless head. Redirects are followed here, one hop at a time, each
/// target checked by ``mayRedirect(from:to:)``. No cache of any kind sits in between.
enum HTTPTransfer {
    /// Sends `request` (its URL must be https, or http to loopback) and waits for the reply, on a
    /// thread of its own (libcurl's easy interface blocks it), never on the caller's.
    static func perform(_ request: HTTPOutgoing, limits: HTTPTransferLimits) async -> Result<
        HTTPReply, HTTPTransferFailure
    > {
        await withCheckedContinuation { continuation in
            DetachedThread.start {
                continuation.resume(returning: performBlocking(request, limits: limits))
            }
        }
    }

    /// ``perform(_:limits:)`` on the calling thread, which it blocks until the reply: for callers
    /// that are not async (OCSP, asked on the verifying thread).
    static func performBlocking(_ request: HTTPOutgoing, limits: HTTPTransferLimits) -> Result<
        HTTPReply, HTTPTransferFailure
    > {
        guard let url = URL(string: request.url), isAllowed(url, plainHTTPAnywhere: limits.plainHTTPAnywhere) else {
            return .failure(.refusedURL(request.url))
        }
        _ = globalInitialization
        return following(request, limits: limits)
    }

    /// libcurl's process-wide set-up, done once before the first request.
    private static let globalInitialization: Int32 = ccurl_global_init()

    /// `request` and the redirects it leads to, one exchange at a time (blocking).
    private static func following(_ first: HTTPOutgoing, limits: HTTPTransferLimits) -> Result<
        HTTPReply, HTTPTransferFailure
    > {
        var request = first
        let deadline = Date().timeIntervalSince1970 + limits.totalTimeout
        var hops = 0
        while true {
            var hopLimits = limits
            hopLimits.totalTimeout = max(0.001, deadline - Date().timeIntervalSince1970)
            let exchange = once(request, limits: hopLimits)
            guard case .success(let (reply, location)) = exchange else { return exchange.map(\.reply) }
            guard let location else { return .success(reply) }
            hops += 1
            if hops > limits.maximumRedirects {
                return .failure(
                    .redirectRefused(
                        limits.maximumRedirects == 0
                            ? "redirect refused (this endpoint is never redirected)"
                            : "more than \(limits.maximumRedirects) redirects"))
            }
            guard
                mayRedirect(
                    from: URL(string: request.url), to: URL(string: location),
                    plainHTTPAnywhere: limits.plainHTTPAnywhere)
            else {
                return .failure(
                    .redirectRefused(
                        "redirect to \(location) refused (never https to http, never off loopback for http)"))
            }
            request.url = location
            // RFC 9110 §15.4: 303 always, and 301/302 after a POST (as every client does), go on as GET.
            if reply.status == 303 || (request.method == "POST" && (reply.status == 301 || reply.status == 302)) {
                request.method = "GET"
                request.body = nil
                request.headers.removeAll { HTTPHead.lowercased($0.name) == "content-type" }
            }
        }
    }

    /// One exchange: the reply, and the redirect target a 3xx names.
    private static func once(
        _ request: HTTPOutgoing, limits: HTTPTransferLimits
    ) -> Result<(reply: HTTPReply, location: String?), HTTPTransferFailure> {
        let sink = ReplySink(limits: limits)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var outcome = ccurl_outcome()
        let stallSeconds = max(1, Int(limits.connectTimeout.rounded(.up)))
        var curlLimits = ccurl_limits(
            connect_timeout_ms: milliseconds(limits.connectTimeout),
            total_timeout_ms: milliseconds(limits.totalTimeout),
            stall_seconds: stallSeconds)
        let started = Date().timeIntervalSince1970
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        let code = withCStrings(lines) { headers in
            let perform = { (body: UnsafeRawPointer?, length: Int) -> Int32 in
                ccurl_perform(
                    request.method, request.url, headers, lines.count, body, length, &curlLimits,
                    { context, data, length in ReplySink.from(context).header(data, length) },
                    { context, data, length in ReplySink.from(context).body(data, length) },
                    context.toOpaque(), &outcome)
            }
            guard let body = request.body else { return perform(nil, 0) }
            // A non-NULL pointer even for an empty body: NULL means "send none".
            return body.withUnsafeBytes { perform($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), $0.count) }
        }
        if let problem = sink.problem { return .failure(problem) }
        guard code == 0 else {
            if code == 28 {  // CURLE_OPERATION_TIMEDOUT: the total time-out, or the stall limit before it
                let elapsed = Date().timeIntervalSince1970 - started
                return .failure(
                    elapsed < limits.totalTimeout - 0.05
                        ? .stalled(Double(stallSeconds)) : .timedOut(limits.totalTimeout))
            }
            let detail = withUnsafeBytes(of: outcome.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(.connection(detail.isEmpty ? String(cString: ccurl_describe(code)) : detail))
        }
        let reply = HTTPReply(status: outcome.status, headers: sink.headers, body: sink.bytes)
        guard (300..<400).contains(outcome.status) else { return .success((reply, nil)) }
        if outcome.redirect_too_long != 0 { return .failure(.redirectRefused("redirect target over 2,047 octets")) }
        let location = withUnsafeBytes(of: outcome.redirect) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return .success((reply, location.isEmpty ? nil : location))
    }

    private static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded(.up))) }

    /// `strings` as NUL-terminated C strings for the duration of `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R
    {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// https anywhere; http only to loopback, unless `plainHTTPAnywhere`.
    static func isAllowed(_ url: URL, plainHTTPAnywhere: Bool = false) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http":
            return plainHTTPAnywhere
                || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
        default: return false
        }
    }

    /// Whether a redirect from `from` to `to` may be followed (never https → http).
    static func mayRedirect(from: URL?, to: URL?, plainHTTPAnywhere: Bool = false) -> Bool {
        guard let to, isAllowed(to, plainHTTPAnywhere: plainHTTPAnywhere) else { return false }
        return !(from?.scheme?.lowercased() == "https" && to.scheme?.lowercased() != "https")
    }
}

/// Header-field names as the origin sends them: ASCII, compared without regard to ASCII case.
enum HTTPHead {
    /// `name` with ASCII capitals lowered (nothing else changes).
    static func lowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// Collects one exchange's head and decoded body as libcurl hands them over, stopping it at
/// either cap. Touched by the transfer's own thread only.
private final class ReplySink {
    let limits: HTTPTransferLimits
    private(set) var bytes: [UInt8] = []
    private(set) var headers: [String: String] = [:]
    private(set) var problem: HTTPTransferFailure?
    private var headBytes = 0

    init(limits: HTTPTransferLimits) { self.limits = limits }

    static func from(_ context: UnsafeMutableRawPointer?) -> ReplySink {
        Unmanaged<ReplySink>.fromOpaque(context!).takeUnretainedValue()
    }

    /// One header line (the status line included); a new status line (after a 1xx) starts over.
    func header(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        headBytes += length
        guard headBytes <= limits.maximumHeaderBytes else {
            problem = .headersTooLarge(limits.maximumHeaderBytes)
            return 0
        }
        guard let data, length > 0 else { return 1 }
        let line = UnsafeRawBufferPointer(start: data, count: length)
        if line.starts(with: "HTTP/".utf8) {
            headers = [:]
            return 1
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return 1 }
        let name = HTTPHead.lowercased(String(decoding: line[..<colon], as: UTF8.self))
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x0D || last == 0x0A || last == 0x20 || last == 0x09 {
            value = value.dropLast()
        }
        headers[name] = String(decoding: value, as: UTF8.self)
        return 1
    }

    /// One chunk of decoded body.
    func body(_ data: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard bytes.count + length <= limits.maximumBytes else {
            problem = .tooLarge(limits.maximumBytes)
            bytes = []
            return 0
        }
        if let data { bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
        return 1
    }
}

/// Raw HTTP answers through the same head and body handling as a real exchange, without a
/// socket: for the fuzz target of hostile answers (`make fuzz TARGET=transport`).
package enum TransportReplay {
    /// `raw` (a status line, header lines, a blank line, then the body) handed to the reply's sink
    /// as libcurl hands an answer over: the head line by line, the body in chunks of `chunk`
    /// octets, under caps of `maximumBytes` and `maximumHeaderBytes`.
    static func replay(_ raw: [UInt8], chunk: Int, maximumBytes: Int, maximumHeaderBytes: Int) -> Result<
        HTTPReply, HTTPTransferFailure
    > {
        let limits = HTTPTransferLimits(
            connectTimeout: 1, totalTimeout: 1, maximumBytes: maximumBytes, maximumRedirects: 0,
            maximumHeaderBytes: maximumHeaderBytes)
        let sink = ReplySink(limits: limits)
        var offset = 0
        var status = 0
        return raw.withUnsafeBufferPointer { bytes -> Result<HTTPReply, HTTPTransferFailure> in
            let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(
                to: CChar.self)
            while offset < bytes.count {
                let end = bytes[offset...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
                let line = bytes[offset..<end]
                if line.starts(with: "HTTP/".utf8) {
                    status = Int(String(decoding: line.dropFirst(9).prefix(3), as: UTF8.self)) ?? 0
                }
                guard sink.header(base + offset, end - offset) == 1 else { return .failure(sink.problem!) }
                offset = end
                // The blank line ends the head, unless it ended a 1xx's (another head follows).
                if line.count <= 2, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }), !(100..<200).contains(status) {
                    break
                }
            }
            while offset < bytes.count {
                let length = min(max(1, chunk), bytes.count - offset)
                guard sink.body(base + offset, length) == 1 else { return .failure(sink.problem!) }
                offset += length
            }
            return .success(HTTPReply(status: status, headers: sink.headers, body: sink.bytes))
        }
    }

    /// `raw` as a key origin's answer: what the key-set cache would make of it, and the key set
    /// its body parses to (nil when it is not one).
    package static func keySetAnswer(_ raw: [UInt8], chunk: Int) -> (KeySetFetchResult, JWKSet?) {
        let outcome = HTTPKeySetFetcher.result(
            of: replay(raw, chunk: chunk, maximumBytes: 16 * 1024, maximumHeaderBytes: 2048))
        guard case .document(let body, _, _, _) = outcome else { return (outcome, nil) }
        return (outcome, try? JWKSet(json: body))
    }

    /// `raw` as Apple's answer to a token request: the members it holds, or the error it is.
    package static func appleAnswer(_ raw: [UInt8], chunk: Int, expectsObject: Bool) -> Result<
        [String: JSONValue], SignInWithAppleError
    > {
        let outcome = replay(raw, chunk: chunk, maximumBytes: 16 * 1024, maximumHeaderBytes: 2048)
        do {
            return .success(
                try AppleAnswer.judge(outcome, expectsObject: expectsObject, redacting: ["secret-1"]).members)
        } catch {
            return .failure(error)
        }
    }
}
