/// Field values as HTTP reads them: the optional whitespace around a value is spaces and
/// horizontal tabs (RFC 9110 §5.6.3), nothing else.
enum HTTPFieldText {
    /// `text` without its leading and trailing spaces and tabs.
    static func trimmed(_ text: some StringProtocol) -> String {
        trimmed(text) { $0 == " " || $0 == "\t" }
    }

    /// `text` without the leading and trailing characters `drop` says to drop.
    static func trimmed(_ text: some StringProtocol, dropping drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }),
            let last = scalars.lastIndex(where: { !drop($0) })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
