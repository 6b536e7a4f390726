package import JWTVerify

/// Where `audit` found something: a file and line, or the tag of a `--tagged-input` line.
package enum AuditOrigin: Sendable {
    /// A file (as named) and a 1-based line.
    case line(file: String, number: Int)
    /// `nil`: a tagged line too long to read its tag.
    case tag(String?)

    /// Appends `"file": …, "line": …` or `"tag": …`.
    package func appendJSON(to text: inout OutputText) {
        switch self {
        case .line(let file, let number):
            text.member("file", file)
            text.key("line")
            text.integer(number)
        case .tag(let tag):
            text.member("tag", tag)
        }
    }

    /// The cells of ``columns(tagged:)``, each after its tab.
    package func appendCells(to text: inout OutputText) {
        text.cellSeparator()
        switch self {
        case .line(let file, let number):
            text.stringCell(file)
            text.cellSeparator()
            text.integerCell(number)
        case .tag(let tag):
            text.stringCell(tag)
        }
    }

    /// The TSV columns of an origin: `file` and `line`, or `tag` for `--tagged-input`.
    package static func columns(tagged: Bool) -> [String] { tagged ? ["tag"] : ["file", "line"] }
}
