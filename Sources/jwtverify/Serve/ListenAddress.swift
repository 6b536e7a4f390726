#if canImport(Glibc)
    import Glibc
#endif

/// `serve --listen HOST:PORT`: an IPv4 address, an IPv6 address in brackets (`[::1]:8080`,
/// `[::]:8080`) or `localhost`, and a port; anything else is a usage error that says what is wrong.
enum ListenAddress {
    /// The host (an address `inet_pton` reads, without brackets) and the port of `value`.
    static func parse(_ value: String, option: String) throws(CommandFailure) -> (host: String, port: UInt16) {
        let example = "e.g. 127.0.0.1:8080 or [::1]:8080"
        guard let colon = value.lastIndex(of: ":") else {
            throw .usage("\(option) \(value): no port (HOST:PORT, \(example))")
        }
        var host = String(value[..<colon])
        let portText = value[value.index(after: colon)...]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2 {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw .usage("\(option) \(value): an IPv6 address goes in brackets (\(example))")
        }
        guard !host.isEmpty else { throw .usage("\(option) \(value): the host is missing (\(example))") }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .usage("\(option) \(value): the port is not a number (\(example))")
        }
        guard let port = UInt16(portText) else {
            throw .usage("\(option) \(value): port \(portText) is out of range (0-65535)")
        }
        if host == "localhost" { host = "127.0.0.1" }
        var v4 = in_addr()
        var v6 = in6_addr()
        guard inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 else {
            throw .usage("\(option) \(value): \(host) is not an IP address (an IPv4 address, [IPv6] or localhost)")
        }
        return (host, port)
    }

    /// `host:port` as a URL writes it (`[::1]:8080` for IPv6).
    static func display(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
