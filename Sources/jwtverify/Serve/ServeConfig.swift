import JWTVerify
import JWTVerifyServer
import JWTVerifyTooling

/// `serve --config FILE`: named routes, each written as the route options of the command line.
///
/// ```json
/// {"routes": {
///   "ios": {"profile": "apple", "audience": ["com.example.app"], "claim_header": ["email=X-User-Email"]},
///   "web": {"profile": "firebase", "project": "example-web", "cache": 50000},
///   "partner": {"jwks": ["partner-keys.json"], "issuer": "https://id.partner.example", "audience": "api"}
/// }}
/// ```
///
/// A member `name` stands for `--name` (underscores for dashes); a string or number is its value,
/// an array repeats the option, `true` sets a flag (`false` leaves it unset). The same table parses
/// and checks both, so a route accepts exactly what the command line does. Paths (`jwks` files,
/// `jwks_cache`, `apple_root`) are relative to the config file's folder, as a service manager
/// runs the server from anywhere. Every error names the file, the route and the key, and says
/// what the key takes.
enum ServeConfig {
    static let table = OptionTable<RouteOptions>(RouteOptions.options)

    /// The keys whose values are paths, resolved against the config file's folder.
    static let pathKeys: Set<String> = Set(
        ["--jwks", "--jwks-cache"]
            + ProviderRegistry.settings.filter { if case .files = $0.kind { true } else { false } }.map(\.flag))

    static func routes(fromFile path: String) throws(CommandFailure) -> [String: RouteOptions] {
        let bytes = try InputFile.readAll(path)
        let root: JSONValue
        switch JSONDocument.parse(bytes) {
        case .success(let document): root = document.withRoot { $0.value }
        case .failure(let problem):
            throw CommandFailure(status: .dataError, message: "--config \(path): not JSON: \(problem.description)")
        }
        guard case .object(let top) = root, case .object(let routes)? = top["routes"] else {
            throw CommandFailure(
                status: .dataError, message: "--config \(path): expected {\"routes\": {\"NAME\": {...}, ...}}")
        }
        let folder = Self.folder(of: path)
        var result: [String: RouteOptions] = [:]
        for (name, value) in routes {
            func failure(_ message: String) -> CommandFailure {
                CommandFailure(status: .dataError, message: "--config \(path): route \"\(name)\": \(message)")
            }
            // A name /auth/NAME can spell as sent: no /, %, ? or #, and not a dot segment (serve refuses those paths).
            let forbidden: [UInt8] = Array("/%?#".utf8)
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }),
                !exactlyEquals(name, "."), !exactlyEquals(name, "..")
            else {
                throw CommandFailure(
                    status: .dataError,
                    message: "--config \(path): route name \"\(name)\" must be printable ASCII "
                        + "without spaces, /, %, ? or #, and not . or ..")
            }
            guard case .object(let members) = value else { throw failure("not an object of options") }
            var options = RouteOptions()
            for (member, value) in members.sorted(by: { $0.key < $1.key }) {
                let name = "--" + String(member.map { $0 == "_" ? "-" : $0 })
                guard let option = table.options.first(where: { $0.names.contains(name) }) else {
                    throw failure("unknown key \"\(member)\"; the keys are " + Self.keyList)
                }
                var values: [String] = []
                if option.placeholder == nil {
                    guard case .bool(let set) = value else {
                        throw failure("\"\(member)\" takes true or false, not \(value.jsonText)")
                    }
                    if set { values.append("") }
                } else {
                    let items: [JSONValue]
                    if case .array(let list) = value { items = list } else { items = [value] }
                    for item in items {
                        guard let text = item.stringValue ?? item.integerText else {
                            throw failure(
                                "\"\(member)\" takes \(option.placeholder!) as a string (or a list of them), not \(item.jsonText)"
                            )
                        }
                        values.append(
                            pathKeys.contains(name)
                                ? Self.resolve(text, against: folder, source: name == "--jwks") : text)
                    }
                }
                for text in values {
                    do {
                        try option.apply(&options, text, name)
                    } catch {
                        let message = Self.keyNames(error.message)
                        throw failure(message.hasPrefix("\"\(member)\"") ? message : "\"\(member)\": " + message)
                    }
                }
            }
            do {
                try options.finish(route: name)
            } catch {
                let own = "route \"\(name)\": "
                throw failure(
                    Self.keyNames(
                        error.message.hasPrefix(own) ? String(error.message.dropFirst(own.count)) : error.message))
            }
            result[name] = options
        }
        return result
    }

    /// The folder holding `path` (`.` for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `text` resolved against `folder` when it is a relative path; a key-set preset or URL (for
    /// `jwks`) and an absolute path stay as they are.
    static func resolve(_ text: String, against folder: String, source: Bool) -> String {
        if source, case .url = KeySetSource(parsing: text) { return text }
        if source, KeySetSource.preset(named: text) != nil { return text }
        guard !text.hasPrefix("/"), !text.isEmpty else { return text }
        return folder == "." ? text : folder + "/" + text
    }

    /// The keys a route takes, for errors.
    static var keyList: String {
        table.options.compactMap {
            $0.names.last.map { "\"" + String($0.dropFirst(2).map { $0 == "-" ? "_" : $0 }) + "\"" }
        }.joined(separator: ", ")
    }

    /// A command-line message in the config's words: `--jwks-cache` becomes `"jwks_cache"`.
    static func keyNames(_ message: String) -> String {
        let characters = Array(message)
        var out = ""
        var index = 0
        while index < characters.count {
            if index + 2 < characters.count, characters[index] == "-", characters[index + 1] == "-",
                characters[index + 2].isLetter
            {
                var end = index + 2
                while end < characters.count,
                    characters[end].isLetter || characters[end].isNumber || characters[end] == "-"
                { end += 1 }
                out += "\"" + String(characters[(index + 2)..<end].map { $0 == "-" ? "_" : $0 }) + "\""
                index = end
            } else {
                out.append(characters[index])
                index += 1
            }
        }
        return out
    }
}

extension JSONValue {
    /// An integer as a route option reads it.
    fileprivate var integerText: String? {
        switch self {
        case .integer(let number): String(number)
        case .number(let number) where number == number.rounded() && abs(number) < 1e15: String(Int64(number))
        case .number(let number): String(number)
        default: nil
        }
    }

    /// The value as JSON, for errors.
    fileprivate var jsonText: String {
        var text = OutputText()
        text.append(self)
        return text.string
    }
}
