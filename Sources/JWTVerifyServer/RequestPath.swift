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
        case auth, verify, notifications, appstore, metrics, healthz, ready
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

    /// The path's parts, or why it is refused.
    package static func parse(_ path: String) -> Result<RequestPath, Refusal> {
        let bytes = Array(path.utf8.prefix { $0 != UInt8(ascii: "?") })
        guard bytes.first == UInt8(ascii: "/") else {
            return .failure(Refusal(description: "the path does not start with /"))
        }
        if bytes.count == 1 { return .success(RequestPath(endpoint: nil, routeName: nil)) }
        if bytes.dropFirst().starts(with: "ext-authz/".utf8) {
            // The route, then the client's own path (Envoy's), which names no route.
            let name = bytes.dropFirst(11).prefix { $0 != UInt8(ascii: "/") }
            guard !name.isEmpty else { return .failure(Refusal(description: "ext-authz needs a route name")) }
            guard !name.contains(UInt8(ascii: "%")) else {
                return .failure(Refusal(description: "percent-encoding in the route name is refused"))
            }
            guard !name.allSatisfy({ $0 == UInt8(ascii: ".") }) || name.count > 2 else {
                return .failure(Refusal(description: "the path has a dot segment"))
            }
            return .success(RequestPath(endpoint: .extAuthz, routeName: String(decoding: name, as: UTF8.self)))
        }
        guard !bytes.contains(UInt8(ascii: "%")) else {
            return .failure(Refusal(description: "percent-encoding in the path is refused"))
        }
        let segments = bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for segment in segments {
            if segment.isEmpty { return .failure(Refusal(description: "the path has an empty segment")) }
            if segment.elementsEqual([UInt8(ascii: ".")])
                || segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
            {
                return .failure(Refusal(description: "the path has a dot segment"))
            }
        }
        guard segments.count <= 2 else {
            return .failure(Refusal(description: "the path has segments after the route name"))
        }
        let endpoint = Endpoint.allCases.first { $0.rawValue.utf8.elementsEqual(segments[0]) }
        if endpoint == .extAuthz { return .failure(Refusal(description: "ext-authz needs a route name")) }
        let name = segments.count == 2 ? String(decoding: segments[1], as: UTF8.self) : nil
        return .success(RequestPath(endpoint: endpoint, routeName: name))
    }
}
