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
            guard case .object(var members) = value else { throw failure("not an object of options") }
            let entries = members.removeValue(forKey: "issuers")
            var options = try Self.options(members, folder: folder, failure)
            if let entries {
                options.issuers = try Self.issuerEntries(entries, route: members, folder: folder, failure)
            } else {
                try Self.finish(&options, route: name, failure)
            }
            result[name] = options
        }
        return result
    }

    /// The keys of a route's options that say how `/auth` answers, so one value for all its issuers.
    static let answerKeys: Set<String> = [
        "claim_header", "token_header", "token_cookie", "realm", "cache_control_max_age", "nonce", "now",
    ]

    /// A route's `"issuers"`: each entry an object of route options (with an `"issuer"`), taken
    /// with the route's own options; the answer options (``answerKeys``) only on the route.
    static func issuerEntries(
        _ value: JSONValue, route members: [String: JSONValue], folder: String, _ failure: (String) -> CommandFailure
    ) throws(CommandFailure) -> [RouteOptions] {
        guard case .array(let list) = value, !list.isEmpty else {
            throw failure("\"issuers\" takes a non-empty list of objects of route options")
        }
        var entries: [RouteOptions] = []
        var seen: [[UInt8]: Int] = [:]
        for (index, item) in list.enumerated() {
            let place = "issuers[\(index)]"
            guard case .object(let own) = item else { throw failure("\(place) is not an object of route options") }
            guard case .string(let issuer)? = own["issuer"], !issuer.isEmpty else {
                throw failure("\(place) needs an \"issuer\" (tokens go to the entry whose issuer is their iss)")
            }
            if let other = seen.updateValue(index, forKey: Array(issuer.utf8)) {
                throw failure("\(place) repeats the issuer of issuers[\(other)]")
            }
            var merged = members
            for (key, value) in own {
                if key == "issuers" { throw failure("\(place): an entry has no \"issuers\" of its own") }
                if answerKeys.contains(key) {
                    throw failure("\(place): \"\(key)\" goes on the route, for all its issuers")
                }
                if members[key] != nil { throw failure("\(place): \"\(key)\" is given on the route too") }
                merged[key] = value
            }
            var options = try Self.options(merged, folder: folder) { failure("\(place): " + $0) }
            try Self.finish(&options, route: "", { failure("\(place): " + $0) })
            if options.policy.rules.receivesNotifications {
                throw failure("\(place): a notification profile takes a route of its own")
            }
            entries.append(options)
        }
        return entries
    }

    /// One object's route options, each key applied as its command-line option.
    static func options(_ members: [String: JSONValue], folder: String, _ failure: (String) -> CommandFailure)
        throws(CommandFailure) -> RouteOptions
    {
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
                        pathKeys.contains(name) ? Self.resolve(text, against: folder, source: name == "--jwks") : text)
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
        return options
    }

    /// ``RouteOptions/finish(route:)``, its message in the config's words.
    static func finish(_ options: inout RouteOptions, route name: String, _ failure: (String) -> CommandFailure)
        throws(CommandFailure)
    {
        do {
            try options.finish(route: name)
        } catch {
            let own = "route \"\(name)\": "
            throw failure(
                Self.keyNames(error.message.hasPrefix(own) ? String(error.message.dropFirst(own.count)) : error.message)
            )
        }
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
