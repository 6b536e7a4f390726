/// A token carried in another token's payload (an App Store notification's signed transaction),
/// to be verified as a token of its own: where its bytes lie in the payload, when the payload's
/// JSON string is the token itself (the fast scanner's strings have no escapes), else its text.
package enum NestedToken: Sendable, Hashable {
    /// The token is these bytes of the carrying token's decoded payload.
    case inPayload(Range<Int>)
    /// The token's text, escapes undone.
    case text(String)

    /// The token's length in bytes.
    var byteCount: Int {
        switch self {
        case .inPayload(let range): range.count
        case .text(let text): text.utf8.count
        }
    }

    /// Runs `body` with the token's bytes, taken from `payload` (the carrying token's decoded
    /// payload) when they lie in it.
    func withBytes<R>(in payload: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .inPayload(let range):
            return payload.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        case .text(var text):
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The nested token read from `value`, a JSON string in a payload; `nil` for other kinds.
    init?<Value: JSONValueReading>(_ value: Value) {
        if let range = value.stringRange {
            self = .inPayload(range)
        } else if let text = value.string {
            self = .text(text)
        } else {
            return nil
        }
    }
}
