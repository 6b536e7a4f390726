#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The three segments of a compact JWS (RFC 7515 §7.1), located in the original token bytes.
///
/// Splitting only finds the two dots; it copies and decodes nothing. The signing input is the
/// token's own `header.payload` bytes, never a re-serialisation.
struct CompactJWS {
    /// Byte range of the header segment.
    let header: Range<Int>
    /// Byte range of the payload segment.
    let payload: Range<Int>
    /// Byte range of the signature segment.
    let signature: Range<Int>

    /// Byte range of `header.payload`: what the signature covers.
    var signingInput: Range<Int> { header.lowerBound..<payload.upperBound }

    /// Why a token could not be split.
    enum SplitFailure: Error {
        /// Five segments: the compact JWE serialisation.
        case encrypted
        /// Any segment count other than three (or five); the count, capped at 10,000.
        case segmentCount(Int)
    }

    /// Splits `token` at its dots. Exactly three segments are accepted; five are a JWE.
    static func split(_ token: UnsafeRawBufferPointer) -> Result<CompactJWS, SplitFailure> {
        guard let base = token.baseAddress,
            let first = nextDot(base, from: 0, count: token.count),
            let second = nextDot(base, from: first + 1, count: token.count)
        else {
            return .failure(.segmentCount(dotCount(token) + 1))
        }
        if nextDot(base, from: second + 1, count: token.count) != nil {
            let dots = dotCount(token)
            return .failure(dots == 4 ? .encrypted : .segmentCount(min(dots + 1, 10_000)))
        }
        return .success(
            CompactJWS(header: 0..<first, payload: (first + 1)..<second, signature: (second + 1)..<token.count))
    }

    /// The offset of the next `.` at or after `start` (memchr: vectorised).
    private static func nextDot(_ base: UnsafeRawPointer, from start: Int, count: Int) -> Int? {
        guard start < count, let found = memchr(base + start, Int32(UInt8(ascii: ".")), count - start) else {
            return nil
        }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// All dots in `token` (only on the rejection path).
    private static func dotCount(_ token: UnsafeRawBufferPointer) -> Int {
        guard let base = token.baseAddress else { return 0 }
        var dots = 0
        var position = 0
        while let dot = nextDot(base, from: position, count: token.count) {
            dots += 1
            position = dot + 1
        }
        return dots
    }
}
