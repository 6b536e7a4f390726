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
/// an array repeats the option, `true` sets a flag. The same table parses and checks both, so a
/// route accepts exactly what the command line does, with the same messages.
enum ServeConfig {
    static let table = OptionTable<RouteOptions>(RouteOptions.options)

    static func routes(fromFile path: String) throws(CommandFailure) -> [String: RouteOptions] {
        let bytes = try InputFile.readAll(path)
        let root: JSONValue
        switch JSONDocument.parse(bytes) {
        case .success(let document): root = document.withRoot { $0.value }
        case .failure(let problem): throw CommandFailure(status: .dataError, message: "--config \(path): not JSON: \(problem.description)")
        }
        guard case .object(let top) = root, case .object(let routes)? = top["routes"] else {
            throw CommandFailure(status: .dataError, message: "--config \(path): expected {\"routes\": {\"NAME\": {...}, ...}}")
        }
        var result: [String: RouteOptions] = [:]
        for (name, value) in routes {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
                throw CommandFailure(status: .dataError, message: "--config \(path): route name \"\(name)\" must be printable ASCII without / or spaces")
            }
            guard case .object(let members) = value else {
                throw CommandFailure(status: .dataError, message: "--config \(path): route \"\(name)\" is not an object")
            }
            var words: [String] = []
            for (member, value) in members.sorted(by: { $0.key < $1.key }) {
                let option = "--" + String(member.map { $0 == "_" ? "-" : $0 })
                switch value {
                case .string(let text): words += [option, text]
                case .integer(let number): words += [option, String(number)]
                case .number(let number): words += [option, String(number)]
                case .bool(true): words.append(option)
                case .bool(false): break
                case .array(let items):
                    for item in items {
                        guard let text = item.stringValue ?? item.doubleValue.map({ String($0) }) else {
                            throw CommandFailure(status: .dataError, message: "--config \(path): route \"\(name)\": \(member) holds a non-string")
                        }
                        words += [option, text]
                    }
                default:
                    throw CommandFailure(status: .dataError, message: "--config \(path): route \"\(name)\": \(member) has an unusable value")
                }
            }
            var options = RouteOptions()
            do {
                _ = try table.parse(words[...], into: &options) { _, word throws(CommandFailure) in throw .usage("unexpected \(word)") }
                try options.finish(route: name)
            } catch {
                throw CommandFailure(status: .dataError, message: "--config \(path): route \"\(name)\": \(error.message)")
            }
            result[name] = options
        }
        return result
    }
}
