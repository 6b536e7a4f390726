/// The one rule for what may surround a token where a face reads one (a command-line argument, an
/// input line, a JSON `"token"` field, a request header or body): ASCII whitespace around it
/// (space, tab, CR, LF: a line's end included), and an authorization scheme `Bearer` (any letter
/// case) followed by spaces or tabs. What is left is the token, exactly as sent; nothing left is a
/// blank, not a token.
///
/// The library itself stays strict (``Verifier/verify(_:nonce:at:)-(String,_,_)`` takes the token
/// alone), but names what surrounds a token it refuses (``surroundings(of:)``).
package enum TokenInput {
    /// What an input holds.
    package enum Found: Equatable {
        /// A token, at this byte range of the input.
        case token(Range<Int>)
        /// Only whitespace (and perhaps a bare scheme): no token.
        case blank
    }

    /// Whether a scheme must introduce the token (an `Authorization` header) or may (anywhere else).
    package enum Scheme {
        case optional, required
    }

    /// The token within `input`, by the rule above; with `scheme: .required`, `nil` when `input`
    /// does not start with `Bearer` (another scheme, such as `Basic`).
    package static func locate(_ input: UnsafeRawBufferPointer, scheme: Scheme = .optional) -> Found? {
        var start = 0
        var end = input.count
        while start < end, isSpace(input[start]) { start += 1 }
        while end > start, isSpace(input[end - 1]) { end -= 1 }
        if hasScheme(input, at: start, end: end) {
            start += 6
            guard start == end || input[start] == UInt8(ascii: " ") || input[start] == UInt8(ascii: "\t") else {
                return scheme == .required ? nil : .token(start - 6..<end)  // "Bearerx…": no scheme
            }
            while start < end, isSpace(input[start]) { start += 1 }
        } else if scheme == .required {
            return start == end ? .blank : nil
        }
        return start == end ? .blank : .token(start..<end)
    }

    /// What surrounds `token` that ``locate(_:scheme:)`` would take away: "whitespace around the
    /// token" or "an authorization scheme before the token"; `nil` when nothing does.
    package static func surroundings(of token: UnsafeRawBufferPointer) -> String? {
        guard let first = token.first, let last = token.last else { return nil }
        var start = 0
        while start < token.count, isSpace(token[start]) { start += 1 }
        if hasScheme(token, at: start, end: token.count), token.count > start + 6, isSpace(token[start + 6]) {
            return "an authorization scheme before the token"
        }
        return isSpace(first) || isSpace(last) ? "whitespace around the token" : nil
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }

    /// Whether `bearer` (any letter case) starts at `start`.
    private static func hasScheme(_ input: UnsafeRawBufferPointer, at start: Int, end: Int) -> Bool {
        guard end - start >= 6 else { return false }
        return input[start] | 0x20 == UInt8(ascii: "b") && input[start + 1] | 0x20 == UInt8(ascii: "e")
            && input[start + 2] | 0x20 == UInt8(ascii: "a") && input[start + 3] | 0x20 == UInt8(ascii: "r")
            && input[start + 4] | 0x20 == UInt8(ascii: "e") && input[start + 5] | 0x20 == UInt8(ascii: "r")
    }
}
