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

/// A request held in memory: for tests, and for faces that call the service in-process.
package struct InMemoryRequest: HTTPRequest, Sendable {
    package var method: String
    package var path: String
    package var body: [UInt8]
    /// Header names in lowercase, and their values.
    package var headers: [String: [UInt8]]
    package var cookies: [String: [UInt8]]

    package init(method: String = "GET", path: String, headers: [String: String] = [:], cookies: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.body = body
        self.headers = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), Array($0.value.utf8)) })
        self.cookies = cookies.mapValues { Array($0.utf8) }
    }

    package func withHeader<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let value = headers[name.lowercased()] else { return body(nil) }
        return value.withUnsafeBytes { body($0) }
    }

    package func withCookie<R>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let value = cookies[name] else { return body(nil) }
        return value.withUnsafeBytes { body($0) }
    }
}
