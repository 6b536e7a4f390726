package import JWTVerify

/// A stretch of `audit --partials` input that one partial report covers: a file's lines, or, with
/// `--tagged-input`, lines whose tags are consecutive places `FILE:LINE` (the Spark job's tags).
/// A partial covers one run, so partials ordered by where their runs start are in input order,
/// however the stage's tasks were handed their lines.
package struct AuditRun: Sendable {
    /// Where a line of a run is.
    package enum Place: Equatable, Sendable {
        /// A line of this input file.
        case file(String)
        /// A tagged line whose tag is `FILE:LINE`.
        case tagged(file: Int, line: Int)
        /// A tagged line whose tag is not a place (or too long to read): a run of its own.
        case unknown

        /// The place of a tagged line's tag (`nil`: unreadable).
        package init(tag: String?) {
            guard let tag, let colon = tag.firstIndex(of: ":"), let file = Int(tag[..<colon]),
                let line = Int(tag[tag.index(after: colon)...]),
                file >= 0, line >= 0
            else {
                self = .unknown
                return
            }
            self = .tagged(file: file, line: line)
        }

        /// Whether a line at `next` continues a run whose last line is here: the same file, or
        /// the same tagged line (a piece of it) or the next one.
        package func isContinued(by next: Place) -> Bool {
            switch (self, next) {
            case (.file(let a), .file(let b)): a == b
            case (.tagged(let file, let line), .tagged(let nextFile, let nextLine)):
                file == nextFile && (nextLine == line || nextLine == line + 1)
            default: false
            }
        }

        /// The run's start as the partial's line names it: the file's name, or `[FILE, LINE]`.
        package func appendJSON(to text: inout OutputText) {
            switch self {
            case .file(let name): text.string(name)
            case .tagged(let file, let line):
                text.beginArray()
                text.integer(file)
                text.integer(line)
                text.endArray()
            case .unknown: text.null()
            }
        }
    }

    package let start: Place
    package var end: Place
    package var records: [AuditRecord] = []
    /// The DPoP proofs of the run (not among ``records``).
    package var proofs: [AuditProof] = []
    package var discarded: [AuditDiscard] = []

    package init(at place: Place) {
        start = place
        end = place
    }

    /// How a stage's output marks a line holding a partial report: `#partial<TAB>START<TAB>PARTIAL`.
    package static let partialMark = "#partial\t"

    /// The line (without its newline) holding `report`'s partial for this run: the mark, where the
    /// run starts (a file's name, or `[FILE, LINE]` for tagged lines), and the partial report.
    package func partialLine(_ report: AuditReport) -> FinishedOutputText {
        var line = OutputText()
        line.appendRaw(Array(Self.partialMark.utf8))
        start.appendJSON(to: &line)
        line.appendRaw(Array("\t".utf8))
        line.appendRaw(Array(report.partialJSON().utf8))
        return line.finish()
    }
}
