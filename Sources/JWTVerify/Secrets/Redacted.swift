/// What a secret prints as, everywhere a value can be printed: `<redacted>`.
///
/// A type that holds a token, a client secret or a private key conforms to
/// `CustomStringConvertible`, `CustomDebugStringConvertible` and `CustomReflectable`, and puts
/// this marker where each secret would go: `print`, string interpolation, `String(reflecting:)`
/// and `dump` then show the fields that are not secret, and never the secret's bytes.
package struct Redacted: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The marker.
    package static let marker = Redacted()

    package init() {}

    /// `<redacted>`.
    package var description: String { "<redacted>" }
    package var debugDescription: String { description }
    /// No children: `dump` prints the marker and stops.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: nil) }

    /// The marker for a secret that may be absent: `nil` stays `nil`, so what is missing still shows.
    package static func marker<T>(for secret: T?) -> Redacted? { secret == nil ? nil : marker }

    /// `Type(label: value, ...)` over `fields`, each value as `String(reflecting:)` shows it (a
    /// string quoted, `nil` as `nil`, ``Redacted`` as `<redacted>`).
    package static func describe(_ type: String, _ fields: KeyValuePairs<String, Any?>) -> String {
        let parts = fields.map { label, value -> String in
            let shown: String = if let value { String(reflecting: value) } else { "nil" }
            return label + ": " + shown
        }
        return type + "(" + parts.joined(separator: ", ") + ")"
    }
}
