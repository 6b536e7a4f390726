import FoundationEssentials
import JWTVerify

/// One answer of Apple's REST endpoints judged against the contract: a 200 with a JSON object (or,
/// for revocation, any body), or the ``SignInWithAppleError`` the status and body make. It holds
/// Apple's tokens, so it prints the names of its members only.
struct AppleAnswer: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The members of the JSON object Apple sent.
    let members: [String: JSONValue]

    var description: String {
        "AppleAnswer(members: [" + members.keys.sorted().joined(separator: ", ") + "]: <redacted>)"
    }
    var debugDescription: String { description }
    var customMirror: Mirror {
        Mirror(
            self, children: ["memberNames": members.keys.sorted(), "values": Redacted.marker], displayStyle: .struct)
    }

    /// Judges `result`. `expectsObject` is false for `/auth/revoke`, whose 200 has no body.
    /// `redacting` lists the request's secrets, cut from any text of Apple's that is repeated.
    static func judge(
        _ result: Result<HTTPReply, HTTPTransferFailure>, expectsObject: Bool, redacting secrets: [String]
    ) throws(SignInWithAppleError) -> AppleAnswer {
        let reply: HTTPReply
        switch result {
        case .success(let answer): reply = answer
        case .failure(.timedOut(let seconds)):
            throw SignInWithAppleError(.unavailable, .timeout, detail: "no answer from Apple within \(seconds) s")
        case .failure(.stalled(let seconds)):
            throw SignInWithAppleError(.unavailable, .timeout, detail: "Apple's answer stalled for \(seconds) s")
        case .failure(.tooLarge(let limit)):
            throw SignInWithAppleError(
                .response, .responseTooLarge, detail: "Apple's answer is over the \(limit)-octet limit")
        case .failure(.headersTooLarge(let limit)):
            throw SignInWithAppleError(
                .response, .responseTooLarge, detail: "Apple's answer's head is over the \(limit)-octet limit")
        case .failure(.redirectRefused(let why)):
            throw SignInWithAppleError(.response, .unexpectedStatus, detail: why)
        case .failure(let failure):
            throw SignInWithAppleError(
                .unavailable, .connectionFailed, detail: "cannot reach Apple: \(failure.description)")
        }
        let object = Self.object(reply.body)
        switch reply.status {
        case 200:
            guard expectsObject else { return AppleAnswer(members: [:]) }
            guard let object else {
                throw SignInWithAppleError(
                    .response, .responseInvalid,
                    detail: "Apple's 200 answer is not a JSON object (\(Self.describe(reply, secrets)))", status: 200)
            }
            return AppleAnswer(members: object)
        case 429, 500...599:
            let retryAfter = reply.header("Retry-After").flatMap { Double(HTTPFieldText.trimmed($0)) }
            throw SignInWithAppleError(
                .unavailable, reply.status == 429 ? .rateLimited : .serverError,
                detail: "Apple answered \(reply.status)" + (retryAfter.map { "; retry after \(Int($0)) s" } ?? ""),
                status: reply.status,
                retryAfter: retryAfter)
        default:
            if let sent = object?["error"]?.stringValue, !sent.isEmpty {
                // Apple's codes are short words; anything else, or anything holding a secret, is cut.
                let code = String(Self.redact(sent, secrets).prefix(64))
                let description = object?["error_description"]?.stringValue.map { Self.redact($0, secrets) }
                throw SignInWithAppleError(
                    .apple, SignInWithAppleError.Code(rawValue: code),
                    detail: "Apple answered \(reply.status) \(code)"
                        + (description.map { ": \($0.prefix(200))" } ?? ""), status: reply.status)
            }
            throw SignInWithAppleError(
                .response, .unexpectedStatus,
                detail: "Apple answered \(reply.status) without an OAuth error (\(Self.describe(reply, secrets)))",
                status: reply.status)
        }
    }

    /// A required string member; `response_invalid` when it is missing or not a string.
    func string(_ name: String) throws(SignInWithAppleError) -> String {
        guard let value = members[name]?.stringValue, !value.isEmpty else {
            throw SignInWithAppleError(
                .response, .responseInvalid, detail: "Apple's answer has no \(name) string", status: 200)
        }
        return value
    }

    /// A required number member; `response_invalid` when it is missing or not a number.
    func number(_ name: String) throws(SignInWithAppleError) -> Double {
        guard let value = members[name]?.doubleValue else {
            throw SignInWithAppleError(
                .response, .responseInvalid, detail: "Apple's answer has no \(name) number", status: 200)
        }
        return value
    }

    /// An optional boolean member, `true`/`false` or the strings `"true"`/`"false"` (Apple sends both).
    func lenientBool(_ name: String) -> Bool? {
        switch members[name] {
        case .bool(let value): value
        case .string("true"): true
        case .string("false"): false
        default: nil
        }
    }

    private static func object(_ body: [UInt8]) -> [String: JSONValue]? {
        guard case .success(let document) = JSONDocument.parse(body) else { return nil }
        return document.withRoot { root in
            guard case .object(let members) = root.value else { return nil }
            return members
        }
    }

    /// What a body that is not the contract looks like, without repeating it: its size and media
    /// type (the type's first 64 octets of token characters, the request's secrets cut, so no
    /// header text of Apple's can carry a secret into an error).
    private static func describe(_ reply: HTTPReply, _ secrets: [String]) -> String {
        guard let type = reply.header("Content-Type").map({ redact($0, secrets) }) else {
            return "\(reply.body.count) octets, no Content-Type"
        }
        let media = type.utf8.prefix { $0 != UInt8(ascii: ";") }.prefix(64)
        let safe = media.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: "/+-.!#$&^_".utf8.contains(byte)
            }
        }
        return "\(reply.body.count) octets, "
            + (safe ? String(decoding: media, as: UTF8.self) : "an unreadable Content-Type")
    }

    private static func redact(_ text: String, _ secrets: [String]) -> String {
        secrets.filter { $0.count >= 4 }.reduce(text) { $0.replacing($1, with: "[redacted]") }
    }
}
