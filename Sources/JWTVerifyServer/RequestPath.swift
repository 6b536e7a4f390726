/// A request path as `serve` reads it: the endpoint, and the route named after it.
///
/// The path is `/ENDPOINT` or `/ENDPOINT/NAME`, taken as sent: libmicrohttpd hands it over without
/// undoing percent-encoding (``MicroHTTPDServer`` turns its unescaper off), and nothing here undoes
/// it either, so a gateway and `serve` can never disagree about which route a path names. A path
/// that could be read two ways is refused (400), never resolved:
/// - percent-encoding anywhere in the path (`%2F`, `%2E`, `%61`, ...);
/// - a dot segment (`/auth/..`, `/auth/a/../b`, `/auth/./a`);
/// - an empty segment (`//auth`, `/auth//a`, `/auth/`, `/auth/a/`);
/// - segments after the route name (`/auth/a/b`);
/// - a path that does not start with `/`.
///
/// One endpoint takes more: `/ext-authz/NAME/...`, for Envoy's `ext_authz`, which always puts the
/// request's own path after its `path_prefix`. NAME (required; `default` names the command line's
/// route) is read by the same rules; what follows it is the client's path, never read as a route.
///
/// The query (from the first `?`) is ignored, as it always was: gateways add their own, and no
/// endpoint reads one. Endpoint and route names are compared as bytes (``ExactBytes``).
package struct RequestPath: Sendable {
    /// The endpoints `serve` answers.
    package enum Endpoint: String, Sendable, CaseIterable {
        case auth, verify, notifications, appstore, retention, metrics, healthz, ready
        case extAuthz = "ext-authz"
    }

    /// The endpoint the first segment names exactly, or `nil` for a path `serve` has none for.
    package let endpoint: Endpoint?
    /// The route name after the endpoint; `nil` for the bare endpoint (the default route).
    package let routeName: String?

    /// Why a path was refused (the 400 answer's text).
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// The path's parts, or why it is refused. Reads the string's own bytes: a bare endpoint
    /// costs no allocation, a named route one (its name).
    package static func parse(_ path: String) -> Result<RequestPath, Refusal> {
        var path = path
        return path.withUTF8 { all in
            let bytes = UnsafeBufferPointer(rebasing: all[..<(all.firstIndex(of: UInt8(ascii: "?")) ?? all.endIndex)])
            return parse(bytes)
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<RequestPath, Refusal> {
        guard bytes.first == UInt8(ascii: "/") else { return refuse("the path does not start with /") }
        if bytes.count == 1 { return .success(RequestPath(endpoint: nil, routeName: nil)) }
        let slash = UInt8(ascii: "/")
        let rest = bytes[1...]
        if rest.starts(with: "ext-authz/".utf8) {
            // The route, then the client's own path (Envoy's), which names no route.
            let name = rest.dropFirst(10).prefix { $0 != slash }
            guard !name.isEmpty else { return refuse("ext-authz needs a route name") }
            guard !name.contains(UInt8(ascii: "%")) else {
                return refuse("percent-encoding in the route name is refused")
            }
            guard !isDotSegment(name) else { return refuse("the path has a dot segment") }
            return .success(RequestPath(endpoint: .extAuthz, routeName: String(decoding: name, as: UTF8.self)))
        }
        guard !rest.contains(UInt8(ascii: "%")) else { return refuse("percent-encoding in the path is refused") }
        // At most two segments: the endpoint and a route name.
        let first = rest.prefix { $0 != slash }
        var name: Slice<UnsafeBufferPointer<UInt8>>? = nil
        if first.endIndex < rest.endIndex {
            let second = rest[(first.endIndex + 1)...]
            guard let extra = second.firstIndex(of: slash) else {
                name = second
                return finish(first, name)
            }
            guard !second[..<extra].isEmpty, !isDotSegment(second[..<extra]) else {
                return refuse(second[..<extra].isEmpty ? "the path has an empty segment" : "the path has a dot segment")
            }
            // A third segment: refused, after the reasons any of its segments would give.
            for segment in rest.split(separator: slash, omittingEmptySubsequences: false) {
                if segment.isEmpty { return refuse("the path has an empty segment") }
                if isDotSegment(segment) { return refuse("the path has a dot segment") }
            }
            return refuse("the path has segments after the route name")
        }
        return finish(first, name)
    }

    /// The endpoint `first` names and the route `name`, once both are known to be segments.
    private static func finish(
        _ first: Slice<UnsafeBufferPointer<UInt8>>, _ name: Slice<UnsafeBufferPointer<UInt8>>?
    ) -> Result<RequestPath, Refusal> {
        if first.isEmpty || name?.isEmpty == true { return refuse("the path has an empty segment") }
        if isDotSegment(first) || name.map(isDotSegment) == true { return refuse("the path has a dot segment") }
        let endpoint = Endpoint.allCases.first { $0.rawValue.utf8.elementsEqual(first) }
        if endpoint == .extAuthz { return refuse("ext-authz needs a route name") }
        return .success(RequestPath(endpoint: endpoint, routeName: name.map { String(decoding: $0, as: UTF8.self) }))
    }

    private static func isDotSegment(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        (segment.count == 1 || segment.count == 2) && segment.allSatisfy { $0 == UInt8(ascii: ".") }
    }

    private static func refuse(_ why: String) -> Result<RequestPath, Refusal> { .failure(Refusal(description: why)) }
}
