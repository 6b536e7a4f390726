/// One HTTP request as the service sees it, whatever carries it: GNU libmicrohttpd in the server
/// (``MicroHTTPDServer``), or a value built in memory by tests. Header and cookie values are lent
/// for the call only.
package protocol HTTPRequest {
    /// `GET`, `POST`, ...
    var method: String { get }
    /// The request target's path, with its query if any.
    var path: String { get }
    /// The body, when the request had one within the server's cap.
    var body: [UInt8] { get }
    /// Runs `body` with the value of header `name` (case-insensitive), or `nil`.
    func withHeader<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R
    /// Runs `body` with the value of cookie `name`, or `nil`.
    func withCookie<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R
    /// How many headers named `name` (case-insensitive) the request carries: ``withHeader(_:_:)``
    /// lends the first only, so a second one is seen here.
    func headerCount(_ name: String) -> Int
    /// How many cookies named `name` the request carries (``withCookie(_:_:)`` lends the first).
    func cookieCount(_ name: String) -> Int
}

/// An answer: status, headers and body.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)] = []
    package var body: [UInt8] = []

    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name` (case-insensitive), if the answer has it.
    package func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// A request held in memory: for tests, and for faces that call the service in-process. A header
/// or cookie may be given more than once (``headerLines``, ``cookieLines``), in order.
package struct InMemoryRequest: HTTPRequest, Sendable {
    package var method: String
    package var path: String
    package var body: [UInt8]
    /// Every header, in order: its name as given, and its value.
    package var headerLines: [(name: String, value: [UInt8])]
    /// Every cookie, in order: its name and its value.
    package var cookieLines: [(name: String, value: [UInt8])]

    /// A request with at most one of each header and cookie (dictionary order), then `repeated`
    /// headers appended as given.
    package init(
        method: String = "GET", path: String, headers: [String: String] = [:], cookies: [String: String] = [:],
        repeated: [(String, String)] = [], repeatedCookies: [(String, String)] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.headerLines = (headers.sorted { $0.key < $1.key } + repeated).map { ($0.0, Array($0.1.utf8)) }
        self.cookieLines = (cookies.sorted { $0.key < $1.key } + repeatedCookies).map { ($0.0, Array($0.1.utf8)) }
    }

    package func withHeader<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let line = headerLines.first(where: { Self.sameHeaderName($0.name, name) }) else { return body(nil) }
        return line.value.withUnsafeBytes { body($0) }
    }

    package func withCookie<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let line = cookieLines.first(where: { Self.sameHeaderName($0.name, name) }) else { return body(nil) }
        return line.value.withUnsafeBytes { body($0) }
    }

    package func headerCount(_ name: String) -> Int { headerLines.count { Self.sameHeaderName($0.name, name) } }

    package func cookieCount(_ name: String) -> Int { cookieLines.count { Self.sameHeaderName($0.name, name) } }

    /// ASCII letters compared without case, every other byte as it is (as libmicrohttpd does).
    private static func sameHeaderName(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z"))
        }
    }
}
