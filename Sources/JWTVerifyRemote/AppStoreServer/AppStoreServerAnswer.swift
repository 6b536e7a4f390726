import FoundationEssentials
import JWTVerify

/// One answer of the App Store Server API judged against the contract: a 200 with a JSON object,
/// or the ``AppStoreServerError`` its status and body make (Apple's `errorCode`/`errorMessage`
/// body, a 401 for our token, a 429 with `Retry-After`). It holds Apple's signed items, so it
/// prints the names of its members only.
struct AppStoreServerAnswer: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The members of the JSON object Apple sent.
    let members: [String: JSONValue]

    var description: String {
        "AppStoreServerAnswer(members: [" + members.keys.sorted().joined(separator: ", ") + "]: <redacted>)"
    }
    var debugDescription: String { description }
    var customMirror: Mirror {
        Mirror(
            self, children: ["memberNames": members.keys.sorted(), "values": Redacted.marker], displayStyle: .struct)
    }

    /// Judges `result`.
    static func judge(_ result: Result<HTTPReply, HTTPTransferFailure>) throws(AppStoreServerError)
        -> AppStoreServerAnswer
    {
        let reply: HTTPReply
        switch result {
        case .success(let answer): reply = answer
        case .failure(.timedOut(let seconds)):
            throw AppStoreServerError(.unavailable, .timeout, detail: "no answer from Apple within \(seconds) s")
        case .failure(.stalled(let seconds)):
            throw AppStoreServerError(.unavailable, .timeout, detail: "Apple's answer stalled for \(seconds) s")
        case .failure(.tooLarge(let limit)):
            throw AppStoreServerError(
                .response, .responseTooLarge, detail: "Apple's answer is over the \(limit)-octet limit")
        case .failure(.headersTooLarge(let limit)):
            throw AppStoreServerError(
                .response, .responseTooLarge, detail: "Apple's answer's head is over the \(limit)-octet limit")
        case .failure(.redirectRefused(let why)):
            throw AppStoreServerError(.response, .unexpectedStatus, detail: why)
        case .failure(let failure):
            throw AppStoreServerError(
                .unavailable, .connectionFailed, detail: "cannot reach Apple: \(failure.description)")
        }
        let object = Self.object(reply.body)
        if reply.status == 200 {
            guard let object else {
                throw AppStoreServerError(
                    .response, .responseInvalid,
                    detail: "Apple's 200 answer is not a JSON object (\(reply.body.count) octets)",
                    status: 200)
            }
            return AppStoreServerAnswer(members: object)
        }
        let errorCode = object?["errorCode"].flatMap(Self.integer).map { AppStoreServerAPIErrorCode(rawValue: Int($0)) }
        let message = object?["errorMessage"]?.stringValue.map { String($0.prefix(200)) }
        let said = errorCode.map { " \($0)" + (message.map { ": \($0)" } ?? "") } ?? ""
        switch reply.status {
        case 401:
            throw AppStoreServerError(
                .unauthorized, .unauthorized,
                detail: "Apple answered 401: it refused our bearer token (key, issuer ID, bundle ID or lifetime)",
                status: 401, appleErrorCode: errorCode, appleErrorMessage: message)
        case 429, 500...599:
            let retryAfter = reply.header("Retry-After").flatMap { Double(HTTPFieldText.trimmed($0)) }
                .flatMap { $0 >= 0 && $0.isFinite ? $0 : nil }
            throw AppStoreServerError(
                .unavailable, reply.status == 429 ? .rateLimited : .serverError,
                detail: "Apple answered \(reply.status)\(said)"
                    + (retryAfter.map { "; retry after \(Int($0)) s" } ?? ""),
                status: reply.status, retryAfter: retryAfter, appleErrorCode: errorCode, appleErrorMessage: message)
        default:
            guard let errorCode else {
                throw AppStoreServerError(
                    .response, .unexpectedStatus,
                    detail: "Apple answered \(reply.status) without an errorCode (\(reply.body.count) octets)",
                    status: reply.status)
            }
            throw AppStoreServerError(
                .apple, AppStoreServerError.Code(rawValue: errorCode.name),
                detail: "Apple answered \(reply.status)\(said)",
                status: reply.status, appleErrorCode: errorCode, appleErrorMessage: message)
        }
    }

    /// A required string member; `response_invalid` when it is missing, empty or not a string.
    func string(_ name: String) throws(AppStoreServerError) -> String {
        guard let value = members[name]?.stringValue, !value.isEmpty else {
            throw Self.invalid("Apple's answer has no \(name) string")
        }
        return value
    }

    /// An optional string member; `response_invalid` when it is present but not a string.
    func optionalString(_ name: String) throws(AppStoreServerError) -> String? {
        try Self.optionalString(members[name], name)
    }

    /// An optional integer member; `response_invalid` when it is present but not an integer.
    func optionalInteger(_ name: String) throws(AppStoreServerError) -> Int64? {
        guard let value = members[name], value != .null else { return nil }
        guard let number = Self.integer(value) else {
            throw Self.invalid("\(name) in Apple's answer is not an integer")
        }
        return number
    }

    /// `hasMore`: `false` when absent; `response_invalid` when not a boolean.
    func hasMore() throws(AppStoreServerError) -> Bool {
        switch members["hasMore"] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw Self.invalid("hasMore in Apple's answer is not a boolean")
        }
    }

    /// An optional array member (absent: empty); `response_invalid` when it is not an array.
    func array(_ name: String) throws(AppStoreServerError) -> [JSONValue] {
        try Self.array(members[name], name)
    }

    /// `value` as an array (absent or null: empty).
    static func array(_ value: JSONValue?, _ name: String) throws(AppStoreServerError) -> [JSONValue] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?: return items
        default: throw invalid("\(name) in Apple's answer is not an array")
        }
    }

    /// `value` as an object.
    static func object(_ value: JSONValue, _ name: String) throws(AppStoreServerError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw invalid("\(name) in Apple's answer is not an object") }
        return members
    }

    /// `value` as an optional string.
    static func optionalString(_ value: JSONValue?, _ name: String) throws(AppStoreServerError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw invalid("\(name) in Apple's answer is not a string")
        }
    }

    /// A whole number: an integer, or a number without a fraction within 2^53.
    static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let number): number
        case .number(let number) where number.rounded() == number && abs(number) <= 9_007_199_254_740_992:
            Int64(number)
        default: nil
        }
    }

    /// `response_invalid` with `detail`.
    static func invalid(_ detail: String) -> AppStoreServerError {
        AppStoreServerError(.response, .responseInvalid, detail: detail, status: 200)
    }

    private static func object(_ body: [UInt8]) -> [String: JSONValue]? {
        guard case .success(let document) = JSONDocument.parse(body) else { return nil }
        return document.withRoot { root in
            guard case .object(let members) = root.value else { return nil }
            return members
        }
    }
}
