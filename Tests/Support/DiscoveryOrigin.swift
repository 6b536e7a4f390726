import Foundation

/// Runs `discovery_origin.py` on 127.0.0.1 for the duration of a test: an issuer whose every
/// path answers what the test sets, and which counts the requests each path got.
package final class DiscoveryOrigin: Sendable {
    private let script: LoopbackScript

    package init() throws { script = try LoopbackScript("discovery_origin.py") }

    /// `http://127.0.0.1:PORT`, an issuer without a path.
    package var base: String { script.url("") }

    /// One path's answer: its status and body, and the caching headers when given.
    package struct Answer {
        package var status = 200
        package var body = ""
        package var maxAge: Int?
        package var etag: String?
        /// A JSON object padded with this many spaces, instead of `body`.
        package var size: Int?

        package init(status: Int = 200, body: String = "", maxAge: Int? = nil, etag: String? = nil, size: Int? = nil) {
            self.status = status
            self.body = body
            self.maxAge = maxAge
            self.etag = etag
            self.size = size
        }
    }

    /// Makes `routes` (raw paths, as requested) the origin's only answers; other paths answer 404.
    package func serve(_ routes: [String: Answer]) throws {
        var table: [String: Any] = [:]
        for (path, answer) in routes {
            var entry: [String: Any] = ["status": answer.status, "body": answer.body]
            if let maxAge = answer.maxAge { entry["max_age"] = maxAge }
            if let etag = answer.etag { entry["etag"] = etag }
            if let size = answer.size { entry["size"] = size }
            table[path] = entry
        }
        _ = try script.send("/control", json: ["routes": table])
    }

    /// The GETs each raw path got, and how many were conditional and answered 304.
    package func stats() throws -> (hits: [String: Int], conditional: [String: Int], notModified: [String: Int]) {
        let object = try JSONSerialization.jsonObject(with: Data(try script.send("/stats"))) as? [String: Any] ?? [:]
        return (
            object["hits"] as? [String: Int] ?? [:], object["conditional"] as? [String: Int] ?? [:],
            object["not_modified"] as? [String: Int] ?? [:]
        )
    }

    /// A discovery document naming `issuer` and `keys` (as JSON text: both are escaped).
    package static func document(issuer: String, keys: String) -> String {
        let members = ["issuer": issuer, "jwks_uri": keys, "response_types_supported": "code"]
        let data = try! JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
