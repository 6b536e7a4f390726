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
        var first = -1
        var second = -1
        var dots = 0
        let dot = UInt8(ascii: ".")
        for i in 0..<token.count where token[i] == dot {
            if dots == 0 {
                first = i
            } else if dots == 1 {
                second = i
            }
            dots += 1
        }
        guard dots == 2 else {
            return .failure(dots == 4 ? .encrypted : .segmentCount(min(dots + 1, 10_000)))
        }
        return .success(
            CompactJWS(header: 0..<first, payload: (first + 1)..<second, signature: (second + 1)..<token.count))
    }
}
