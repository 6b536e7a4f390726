/// Where a claim sits in a token's payload: a member name, or a dotted path into nested objects
/// (`realm_access.roles`, `firebase.sign_in_provider`).
///
/// Written with dots between member names; a member name that itself holds a dot (a namespaced
/// claim such as `https://example.com/roles`) writes it as `\.`, and a backslash as `\\`.
/// Members are found by their exact UTF-8 bytes.
public struct ClaimPath: Sendable, Hashable, CustomStringConvertible {
    /// The member names, outermost first (never empty, none empty).
    public let components: [String]
    /// The UTF-8 bytes of each component, made once.
    package let componentBytes: [[UInt8]]

    /// A path from its member names; `nil` when there are none or one is empty.
    public init?(components: [String]) {
        guard !components.isEmpty, components.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.components = components
        self.componentBytes = components.map { Array($0.utf8) }
    }

    /// Parses the dotted form (`a.b.c`, `\.` for a dot inside a name, `\\` for a backslash);
    /// `nil` for an empty component or a dangling or unknown escape.
    public init?(parsing text: String) {
        var components: [String] = []
        var current: [UInt8] = []
        var escaped = false
        for byte in text.utf8 {
            if escaped {
                guard byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\\") else { return nil }
                current.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: ".") {
                components.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        guard !escaped else { return nil }
        components.append(String(decoding: current, as: UTF8.self))
        self.init(components: components)
    }

    /// The dotted form, dots and backslashes inside names escaped (it parses back to this path).
    public var description: String {
        components.map { name in
            var escaped = ""
            for character in name.unicodeScalars {
                if character == "." || character == "\\" { escaped.unicodeScalars.append("\\") }
                escaped.unicodeScalars.append(character)
            }
            return escaped
        }.joined(separator: ".")
    }

    /// The value at this path in `object`, through nested objects; `nil` when a member is absent
    /// or a step is not an object.
    func value<Object: JSONObjectReading>(in object: Object) -> Object.Value? {
        var value = componentBytes[0].withUnsafeBytes { object.member(named: $0) }
        for name in componentBytes.dropFirst() {
            guard let outer = value, outer.kind == .object else { return nil }
            value = name.withUnsafeBytes { outer.member(named: $0) }
        }
        return value
    }

    /// The value at this path in a copied JSON object, names compared as bytes (a dictionary's
    /// lookup would take a canonically equivalent name for the same).
    package func value(in members: [String: JSONValue]) -> JSONValue? {
        var object = members
        for (index, name) in components.enumerated() {
            guard let value = object.first(where: { exactlyEquals($0.key, name) })?.value else { return nil }
            if index == components.count - 1 { return value }
            guard case .object(let inner) = value else { return nil }
            object = inner
        }
        return nil
    }

    /// Two paths are the same when their names are the same bytes.
    public static func == (lhs: ClaimPath, rhs: ClaimPath) -> Bool { lhs.componentBytes == rhs.componentBytes }

    /// Hashes the names' bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(componentBytes) }
}
