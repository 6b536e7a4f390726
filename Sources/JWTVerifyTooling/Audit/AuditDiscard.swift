package import JWTVerify

/// A token-like fragment `audit` did not take, and where it was (`--discards`).
package struct AuditDiscard: Sendable {
    package let reason: TokenExtractor.Discard
    package let origin: AuditOrigin

    package init(reason: TokenExtractor.Discard, origin: AuditOrigin) {
        self.reason = reason
        self.origin = origin
    }

    /// Appends the JSON Lines record: `{"discarded": REASON, "file": …, "line": …}` or with `"tag"`.
    package func appendJSON(to text: inout OutputText) {
        text.beginObject()
        text.member("discarded", reason.rawValue)
        origin.appendJSON(to: &text)
        text.endObject()
        text.newline()
    }

    /// Appends the TSV row: the reason and where, every other column empty.
    package func appendCells(to text: inout OutputText, columns: Int) {
        text.stringCell(reason.rawValue)
        origin.appendCells(to: &text)
        let originColumns: Int = if case .tag = origin { 1 } else { 2 }
        for _ in (1 + originColumns)..<columns { text.cellSeparator() }
        text.newline()
    }
}
