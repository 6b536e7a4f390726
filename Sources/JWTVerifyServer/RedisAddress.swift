/// Where a Redis server listens, from `--replay-store redis://HOST:PORT`: HOST a name, an IPv4
/// address or `[IPv6]`, PORT 1–65535 (6379 when left out). No user, password, database or path:
/// the store is reached over a trusted network (loopback or a private one).
package struct RedisAddress: Sendable, Equatable {
    /// The host, without brackets.
    package let host: String
    /// The port.
    package let port: Int

    /// An address from its parts.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The address from its URL, or what is wrong with it.
    package static func parse(_ url: String) -> Result<RedisAddress, RedisProblem> {
        let scheme = "redis://"
        guard url.hasPrefix(scheme) else { return .failure(RedisProblem("expected redis://HOST:PORT")) }
        let rest = Substring(url.dropFirst(scheme.count))
        guard !rest.isEmpty, !rest.contains(where: { "/?#@ ".contains($0) }) else {
            return .failure(RedisProblem("expected redis://HOST:PORT (no user, password, database or path)"))
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                return .failure(RedisProblem("an IPv6 address needs its ]"))
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(RedisProblem("expected :PORT after ]")) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return .failure(RedisProblem("the host is empty")) }
        var port = 6379
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value),
                portText.allSatisfy({ ("0"..."9").contains($0) })
            else {
                return .failure(RedisProblem("the port must be 1-65535"))
            }
            port = value
        }
        return .success(RedisAddress(host: String(host), port: port))
    }

    /// `host:port`, IPv6 in brackets.
    package var display: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
