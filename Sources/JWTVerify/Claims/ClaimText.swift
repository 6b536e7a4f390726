/// One string claim as ``RegisteredClaims`` keeps it: where its bytes lie in the payload the claims
/// were read from, or a `String`.
///
/// The fast scanner accepts strings only without escapes, so the bytes of each string it reads are
/// the string itself: the claims keep their place instead of a copy, and a verified token costs no
/// allocation per claim. Strings jansson decoded, and those set through the API, are `String`s.
enum ClaimText: Sendable {
    /// `count` bytes from `start` of the claims' payload.
    case bytes(start: Int32, count: Int32)
    /// A string of its own.
    case string(String)

    /// The claim of a string value `node`: its place when its bytes are the string's own (and
    /// `keepsPlaces`), else a copy; `nil` for other types.
    @inline(__always)
    static func of<Value: JSONValueReading>(_ node: Value, keepsPlaces: Bool) -> ClaimText? {
        if keepsPlaces, let range = node.stringRange {
            return .bytes(
                start: Int32(truncatingIfNeeded: range.lowerBound), count: Int32(truncatingIfNeeded: range.count))
        }
        return node.string.map(ClaimText.string)
    }
}
