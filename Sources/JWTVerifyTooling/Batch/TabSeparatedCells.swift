package import JWTVerify

/// Tab-separated cells, written into the same buffer as the JSON Lines records: the rows of
/// `audit --format tsv`. Every row is one line, so line tools (`cut`, `awk`, Spark's `pipe`) can
/// split them, and every value reads back exactly:
///
/// - A missing value (JSON `null`) is an empty cell.
/// - Text is written as is, unless it is empty, starts with a quote or holds a control character
///   (a tab or a line break among them): then it is written as a JSON string, quoted and escaped.
///   A cell that starts with `"` is therefore JSON; any other cell is its own text.
/// - Numbers and booleans are written as in JSON.
///
/// Each cell but a row's first starts with ``cellSeparator()``, so a row is its first cell, then
/// a separator and a cell for each of the others, then ``OutputText/newline()``. (The separator and
/// the line break also keep JSON's commas out: a value written after either starts afresh.)
extension OutputText {
    /// The tab before a cell.
    private static let tab: UInt8 = 0x09

    /// Appends the tab that starts a cell.
    package mutating func cellSeparator() {
        withUnsafeBytes(of: Self.tab) { appendRaw($0) }
    }

    /// Appends a string cell (or an empty one for `nil`), as JSON when it must be.
    package mutating func stringCell(_ value: String?) {
        guard var value else { return }
        value.withUTF8 { cellText(UnsafeRawBufferPointer($0)) }
    }

    /// Appends the string claim `claim` of `claims` as a cell, read in place (an empty cell when
    /// it is absent).
    package mutating func stringCell(_ claim: RegisteredClaims.TextClaim, of claims: borrowing RegisteredClaims) {
        claims.withBytes(of: claim) { bytes in
            if let bytes { cellText(bytes) }
        }
    }

    /// Appends the bytes of a string cell: as a JSON string when they are empty, start with a
    /// quote or hold a control character; as they are otherwise.
    package mutating func cellText(_ value: UnsafeRawBufferPointer) {
        guard let first = value.first, first != 0x22, !value.contains(where: { $0 < 0x20 }) else {
            return string(value)
        }
        appendRaw(value)
    }

    /// Appends a number cell, written as JSON writes it (an empty cell for `nil`, or for what is
    /// not finite, which JSON writes as `null`).
    package mutating func numberCell(_ value: Double?) {
        guard let value, value.isFinite else { return }
        number(value)
    }

    /// Appends an integer cell.
    package mutating func integerCell(_ value: Int) {
        integer(value)
    }

    /// Appends `true` or `false`.
    package mutating func boolCell(_ value: Bool) {
        bool(value)
    }

    /// Appends `digest` in lowercase hex (or an empty cell for `nil`).
    package mutating func hexCell(_ digest: SHA256Digest?) {
        guard let digest else { return }
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { digits in
            digest.withUnsafeBytes { HexDigits.write($0, to: digits.baseAddress!) }
            appendRaw(UnsafeRawBufferPointer(digits))
        }
    }

    /// Appends a row's header: `names`, tab-separated, and the line break.
    package mutating func headerRow(_ names: [String]) {
        for (index, name) in names.enumerated() {
            if index > 0 { cellSeparator() }
            stringCell(name)
        }
        newline()
    }
}
