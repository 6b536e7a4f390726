/// The request a gateway checks with `/auth`, as forward-auth conventions name it:
/// `X-Forwarded-Method`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Uri`. A DPoP
/// proof names the client's request (`htm`, `htu`), not the subrequest the gateway sends serve,
/// so these four headers are the only place it can be checked against.
///
/// They are the gateway's word: the README's recipes set all four from the client's request, so
/// that no client can. Each must be sent exactly once and be non-empty, the scheme `http` or
/// `https`, the host free of `/`, `?`, `#`, `@` and whitespace, the URI an origin-form target
/// (starting with `/`); otherwise the request is refused (`400`), never checked against a guess.
package struct ForwardedRequest: Equatable, Sendable {
    /// The client's method, as sent (`GET`).
    package let method: String
    /// The client's absolute URI, `proto://host/uri` (the query kept: the proof check drops it).
    package let uri: String

    /// The four headers' names.
    package static let headers = ["X-Forwarded-Method", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Uri"]

    /// The forwarded request of `request`, or why it cannot be had.
    package static func read(_ request: some HTTPRequest) -> Result<ForwardedRequest, Refusal> {
        var values: [String] = []
        for name in headers {
            guard request.headerCount(name) == 1 else {
                return .failure(Refusal(header: name, problem: request.headerCount(name) == 0 ? "missing" : "repeated"))
            }
            let value = request.withHeader(name) { $0.map { Array($0) } } ?? []
            guard !value.isEmpty, value.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                return .failure(Refusal(header: name, problem: "empty or not printable ASCII without spaces"))
            }
            values.append(String(decoding: value, as: UTF8.self))
        }
        let (method, proto, host, target) = (values[0], values[1], values[2], values[3])
        let scheme = Array(proto.utf8).map { $0 | 0x20 }
        guard scheme == Array("https".utf8) || scheme == Array("http".utf8) else {
            return .failure(Refusal(header: headers[1], problem: "not http or https"))
        }
        guard !host.utf8.contains(where: { "/?#@\\".utf8.contains($0) }) else {
            return .failure(Refusal(header: headers[2], problem: "not a host[:port]"))
        }
        guard target.utf8.first == UInt8(ascii: "/") else {
            return .failure(Refusal(header: headers[3], problem: "not a path starting with /"))
        }
        return .success(ForwardedRequest(method: method, uri: proto + "://" + host + target))
    }

    /// Why the forwarded request cannot be had: which header, and what is wrong with it.
    package struct Refusal: Error, Equatable, Sendable {
        /// The header at fault.
        package let header: String
        /// What is wrong with it.
        package let problem: String

        /// `X-Forwarded-Uri missing`.
        package var description: String { "\(header) \(problem)" }
    }
}
