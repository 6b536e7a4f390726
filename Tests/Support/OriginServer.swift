import Foundation

/// Runs `jwks_origin.py` on 127.0.0.1 for the duration of a test, and scripts it.
package final class OriginServer: Sendable {
    private let script: LoopbackScript

    package init() throws { script = try LoopbackScript("jwks_origin.py") }

    package var port: Int { script.port }
    package var keysURL: String { script.url("/keys") }
    package func url(_ path: String) -> String { script.url(path) }

    /// Sets the origin's behaviour.
    package func set(_ settings: [String: Any]) throws { _ = try script.send("/control", json: settings) }

    /// The origin's request counters.
    package func stats() throws -> (requests: Int, conditional: Int, notModified: Int, ifModifiedSince: Int) {
        let object = try JSONSerialization.jsonObject(with: Data(try script.send("/stats"))) as? [String: Int] ?? [:]
        return (
            object["requests"] ?? -1, object["conditional"] ?? -1, object["not_modified"] ?? -1,
            object["if_modified_since"] ?? -1
        )
    }
}
