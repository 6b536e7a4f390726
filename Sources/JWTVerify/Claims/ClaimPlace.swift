/// Where ``RegisteredClaims`` keeps one string claim, in eight bytes: absent, a `String` of its
/// own, or a range of the payload the claims were read from.
///
/// The fast scanner accepts strings only without escapes, so the bytes of each string it reads are
/// the string itself: the claims keep its place instead of a copy, and a verified token costs no
/// allocation per claim. Strings jansson decoded, and those set through the API, are `String`s.
struct ClaimPlace: Sendable, Equatable {
    /// `start << 32 | count`, or one of the two marks.
    private let raw: UInt64

    private init(raw: UInt64) { self.raw = raw }

    /// The claim is absent.
    static let absent = ClaimPlace(raw: .max)
    /// The claim is a `String` of its own.
    static let owned = ClaimPlace(raw: .max - 1)

    /// `range` of the payload (whose length the scanner keeps below 2^31).
    init(_ range: Range<Int>) {
        raw = UInt64(truncatingIfNeeded: range.lowerBound) << 32 | UInt64(truncatingIfNeeded: range.count)
    }

    /// The range of the payload, when the claim is kept there.
    var range: Range<Int>? {
        guard raw < Self.owned.raw else { return nil }
        let start = Int(truncatingIfNeeded: raw >> 32)
        return start..<(start + Int(truncatingIfNeeded: raw & 0xFFFF_FFFF))
    }
}
