/// A request URI as a DPoP proof's `htu` is compared with it (RFC 9449 §4.3 step 9): without its
/// query and fragment, normalised by RFC 3986 §6.2.2 (syntax-based) and §6.2.3 (scheme-based).
///
/// - scheme and host in lowercase (§6.2.2.1), the hex digits of percent-encodings in uppercase;
/// - percent-encoded unreserved characters (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `.`, `_`, `~`) decoded
///   (§6.2.2.2), every other percent-encoding kept;
/// - `.` and `..` segments removed (§6.2.2.3, the algorithm of §5.2.4);
/// - an empty port, or the scheme's default (`http` 80, `https` 443), left out; an empty path
///   made `/` (§6.2.3).
///
/// Only an absolute URI with an authority is a target (`scheme://host…`): anything else, a byte
/// outside printable ASCII, a character RFC 3986 does not allow where it stands, a broken
/// percent-encoding or a port beyond 65535 makes no target. The normalised form is compared as
/// bytes (``bytes``); nothing is decoded that would change which resource is named.
public struct DPoPTargetURI: Sendable, Hashable, CustomStringConvertible {
    /// The normalised URI's bytes: `scheme://[userinfo@]host[:port]/path`.
    public let bytes: [UInt8]

    /// The normalised form of `uri`, or `nil` when it is not an absolute URI with an authority.
    public init?(_ uri: String) {
        guard let bytes = Self.normalise(Array(uri.utf8)) else { return nil }
        self.bytes = bytes
    }

    /// The normalised form of the URI `bytes`, or `nil` (see ``init(_:)``).
    package init?(bytes: some Collection<UInt8>) {
        guard let normalised = Self.normalise(Array(bytes)) else { return nil }
        self.bytes = normalised
    }

    /// The normalised URI.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether `a` and `b` are the same bytes up to their first `?` or `#`: then either both are
    /// one target or neither is a target.
    package static func sameBeforeQuery(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        func isCut(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            let x = left.next().flatMap { isCut($0) ? nil : $0 }
            let y = right.next().flatMap { isCut($0) ? nil : $0 }
            guard x == y else { return false }
            if x == nil { return true }
        }
    }

    /// Scheme-based default ports (§6.2.3).
    private static func defaultPort(_ scheme: [UInt8]) -> Int? {
        switch scheme {
        case Array("http".utf8), Array("ws".utf8): 80
        case Array("https".utf8), Array("wss".utf8): 443
        default: nil
        }
    }

    private static func normalise(_ input: [UInt8]) -> [UInt8]? {
        // The query and the fragment are not part of the target.
        var end = input.count
        if let cut = input.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { end = cut }
        let uri = input[..<end]
        guard uri.allSatisfy(isPrintable) else { return nil }
        // scheme ":" "//"
        guard let colon = uri.firstIndex(of: UInt8(ascii: ":")), colon > uri.startIndex,
            isAlpha(uri[uri.startIndex]), uri[uri.startIndex..<colon].allSatisfy(isSchemeByte)
        else { return nil }
        let scheme = uri[..<colon].map(lowercased)
        let afterColon = uri.index(after: colon)
        guard uri[afterColon...].starts(with: "//".utf8) else { return nil }
        let authorityStart = afterColon + 2
        let pathStart = uri[authorityStart...].firstIndex(of: UInt8(ascii: "/")) ?? uri.endIndex
        guard let authority = normaliseAuthority(uri[authorityStart..<pathStart], scheme: scheme) else { return nil }
        let rawPath = uri[pathStart...]
        guard rawPath.allSatisfy({ isPathByte($0) }),
            var path = percentNormalised(rawPath, lowercasing: false)
        else { return nil }
        path = removingDotSegments(path)
        if path.isEmpty { path = [UInt8(ascii: "/")] }
        return scheme + Array("://".utf8) + authority + path
    }

    /// `[userinfo "@"] host [":" port]`, normalised; `nil` when it is not one.
    private static func normaliseAuthority(_ authority: ArraySlice<UInt8>, scheme: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var rest = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            guard userinfo.allSatisfy({ isUserinfoByte($0) }),
                let normalised = percentNormalised(userinfo, lowercasing: false)
            else { return nil }
            out += normalised + [UInt8(ascii: "@")]
            rest = authority[(at + 1)...]
        }
        var host: ArraySlice<UInt8>
        var port: ArraySlice<UInt8>? = nil
        if rest.first == UInt8(ascii: "[") {
            // An IP literal: hex digits, `:`, `.` and the IPvFuture characters, up to `]`.
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let literal = rest[rest.index(after: rest.startIndex)..<close]
            guard !literal.isEmpty,
                literal.allSatisfy({ isUnreserved($0) || isSubDelim($0) || $0 == UInt8(ascii: ":") })
            else { return nil }
            host = rest[rest.startIndex...close]
            let after = rest[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { return nil }
                port = after.dropFirst()
            }
            out += host.map(lowercased)
        } else {
            if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
                host = rest[..<colon]
                port = rest[(colon + 1)...]
            } else {
                host = rest
            }
            guard !host.isEmpty, host.allSatisfy({ isRegNameByte($0) }),
                let normalised = percentNormalised(host, lowercasing: true)
            else { return nil }
            out += normalised
        }
        if let port, !port.isEmpty {
            guard port.allSatisfy(isDigit) else { return nil }
            let digits = port.drop(while: { $0 == UInt8(ascii: "0") })
            guard digits.count <= 5 else { return nil }
            let number = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard number <= 65535 else { return nil }
            if number != defaultPort(scheme) {
                out.append(UInt8(ascii: ":"))
                out += digits.isEmpty ? [UInt8(ascii: "0")] : Array(digits)
            }
        }
        return out
    }

    /// `bytes` with percent-encoded unreserved characters decoded and every other encoding's hex
    /// in uppercase; with `lowercasing`, letters outside encodings in lowercase (a host).
    private static func percentNormalised(_ bytes: ArraySlice<UInt8>, lowercasing: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                out.append(lowercasing ? lowercased(byte) : byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            else { return nil }
            let value = high << 4 | low
            if isUnreserved(value) {
                out.append(lowercasing ? lowercased(value) : value)
            } else {
                out += [UInt8(ascii: "%"), upperHex(high), upperHex(low)]
            }
            index += 3
        }
        return out
    }

    /// RFC 3986 §5.2.4's `remove_dot_segments`.
    static func removingDotSegments(_ path: [UInt8]) -> [UInt8] {
        var input = path[...]
        var output: [UInt8] = []
        func removeLastSegment() {
            if let slash = output.lastIndex(of: UInt8(ascii: "/")) {
                output.removeSubrange(slash...)
            } else {
                output.removeAll()
            }
        }
        while !input.isEmpty {
            if input.starts(with: "../".utf8) {
                input = input.dropFirst(3)
            } else if input.starts(with: "./".utf8) {
                input = input.dropFirst(2)
            } else if input.starts(with: "/./".utf8) {
                input = input.dropFirst(2)
            } else if input.elementsEqual("/.".utf8) {
                input = [UInt8(ascii: "/")][...]
            } else if input.starts(with: "/../".utf8) {
                input = input.dropFirst(3)
                removeLastSegment()
            } else if input.elementsEqual("/..".utf8) {
                input = [UInt8(ascii: "/")][...]
                removeLastSegment()
            } else if input.elementsEqual(".".utf8) || input.elementsEqual("..".utf8) {
                input = [][...]
            } else {
                let from = input.first == UInt8(ascii: "/") ? input.index(after: input.startIndex) : input.startIndex
                let next = input[from...].firstIndex(of: UInt8(ascii: "/")) ?? input.endIndex
                output += input[..<next]
                input = input[next...]
            }
        }
        return output
    }

    private static func isPrintable(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && !"\"<>\\^`{|}".utf8.contains(byte)
    }
    private static func isAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || "-._~".utf8.contains(byte)
    }
    private static func isSubDelim(_ byte: UInt8) -> Bool { "!$&'()*+,;=".utf8.contains(byte) }
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelim(byte) || byte == UInt8(ascii: "%")
    }
    private static func isUserinfoByte(_ byte: UInt8) -> Bool { isRegNameByte(byte) || byte == UInt8(ascii: ":") }
    private static func isPathByte(_ byte: UInt8) -> Bool {
        isRegNameByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/")
    }
    private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
    private static func upperHex(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x41 + value - 10 }
}
