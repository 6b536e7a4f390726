import JWTVerify

/// Repeats and nonces shared by distinct tokens, reduced from sightings grouped by key: how the
/// Spark job finds them where the data is, without one process holding every distinct token.
///
/// The job's shuffle brings every sighting of a token (then every distinct token of a nonce) to
/// one task, sorted by key; that task's `jwtverify audit reduce` streams through its groups with
/// one group in memory and keeps only what the report shows: counts, and the ``AuditReport/listLimit``
/// candidates for each list. `audit merge` adds the reductions to the partial reports' counts.
/// The semantics are ``AuditReport/add(_:)``'s: a token's first and last sighting are its earliest
/// and latest in input order; a nonce's first is its earliest token's first sighting and its last
/// the latest sighting of any of its tokens.
///
/// Input lines, tab-separated, grouped by their first field:
/// - `tokens`: `FINGERPRINT NONCE_FINGERPRINT COUNT FIRST_ORDER LAST_ORDER FIRST LAST`, a task's
///   summary of a token's occurrences (``AuditRepeatCombiner``; the nonce empty when the token has
///   none); each token with a nonce becomes one `nonces` line on the output.
/// - `nonces`: `NONCE_FINGERPRINT FINGERPRINT FIRST_ORDER LAST_ORDER FIRST LAST` per distinct token;
///   `#reduced` lines (the `tokens` reductions) are passed on as they are.
/// An order is where a sighting stands in the input, `FILE,LINE,COLUMN` (the file by its position
/// in the listing); a sighting is its JSON (`{"file", "line", "column"}`), carried as is.
package struct AuditReduction {
    /// What is grouped.
    package enum Key: String, CaseIterable, Sendable {
        /// Sightings by token fingerprint: repeats.
        case tokens
        /// Distinct tokens by nonce fingerprint: shared nonces.
        case nonces
    }

    /// How a reduction's line starts on the output (`#reduced<TAB>JSON`).
    package static let mark = "#reduced\t"
    /// How a task's token summary starts among its records (``AuditRepeatCombiner``): the job
    /// takes the mark off and shuffles the rest, a `tokens` line.
    package static let summaryMark = "#sighted\t"

    /// Where a sighting stands in the input.
    struct Order: Comparable {
        let file: Int64
        let line: Int64
        let column: Int64
        static func < (a: Order, b: Order) -> Bool { (a.file, a.line, a.column) < (b.file, b.line, b.column) }
        var text: String { "\(file),\(line),\(column)" }
        init(file: Int64, line: Int64, column: Int64) {
            self.file = file
            self.line = line
            self.column = column
        }
        init?(_ text: Substring) {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 3, let file = Int64(parts[0]), let line = Int64(parts[1]), let column = Int64(parts[2])
            else { return nil }
            self.file = file
            self.line = line
            self.column = column
        }
    }

    /// One group as it is read.
    private struct Group {
        let key: Substring
        var other: Substring
        var count: Int
        var first: (order: Order, sighting: Substring)
        var last: (order: Order, sighting: Substring)
    }

    /// A candidate for the report's list.
    struct Candidate {
        let fingerprint: String
        let count: Int
        let first: String
        let last: String
    }

    package let key: Key
    private var group: Group?
    private var previousKey = ""
    /// Groups counted (tokens: distinct tokens; nonces: distinct nonces).
    private(set) var groups = 0
    /// Groups of more than one line, and the lines beyond each group's first.
    private(set) var repeatedGroups = 0
    private(set) var extraLines = 0
    /// Lines in groups of more than one (nonces: the distinct tokens sharing a nonce).
    private(set) var linesInRepeatedGroups = 0
    /// The best ``AuditReport/listLimit`` groups of more than one line, best first.
    private(set) var candidates: [Candidate] = []

    package init(_ key: Key) { self.key = key }

    /// Reads one input line; returns the line (without newline) to pass on, if any: a token's
    /// `nonces` line when its group ends.
    package mutating func add(_ line: String) throws(AuditReport.ParseFailure) -> String? {
        if key == .nonces, line.hasPrefix(Self.mark) { return line }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        let lineKey = fields.first ?? ""
        var passed: String? = nil
        if let current = group, current.key != lineKey {
            passed = finish(current)
            group = nil
        }
        switch key {
        case .tokens:
            guard fields.count == 7, let count = Int(fields[2]), count > 0, let first = Order(fields[3]),
                let last = Order(fields[4]), !lineKey.isEmpty
            else {
                throw AuditReport.ParseFailure(
                    message: "a tokens line is not FINGERPRINT, NONCE, COUNT, FIRST_ORDER, LAST_ORDER, FIRST and LAST")
            }
            if group == nil {
                try start(lineKey)
                group = Group(
                    key: lineKey, other: fields[1], count: count, first: (first, fields[5]), last: (last, fields[6]))
            } else {
                group!.count += count
                if first < group!.first.order { group!.first = (first, fields[5]) }
                if group!.last.order < last { group!.last = (last, fields[6]) }
            }
        case .nonces:
            guard fields.count == 6, let first = Order(fields[2]), let last = Order(fields[3]), !lineKey.isEmpty else {
                throw AuditReport.ParseFailure(
                    message: "a nonces line is not NONCE, FINGERPRINT, FIRST_ORDER, LAST_ORDER, FIRST and LAST")
            }
            if group == nil {
                try start(lineKey)
                group = Group(
                    key: lineKey, other: fields[1], count: 1, first: (first, fields[4]), last: (last, fields[5]))
            } else {
                group!.count += 1
                if first < group!.first.order { group!.first = (first, fields[4]) }
                if group!.last.order < last { group!.last = (last, fields[5]) }
            }
        }
        return passed
    }

    /// Ends the input: the last group's `nonces` line, if any.
    package mutating func finish() -> String? {
        guard let current = group else { return nil }
        group = nil
        return finish(current)
    }

    /// A new group's key must sort after the last one: the groups are whole.
    private mutating func start(_ key: Substring) throws(AuditReport.ParseFailure) {
        let text = String(key)
        guard groups == 0 || previousKey < text else {
            throw AuditReport.ParseFailure(message: "the input is not grouped by key: \(text) after \(previousKey)")
        }
        previousKey = text
        groups += 1
    }

    private mutating func finish(_ group: Group) -> String? {
        if group.count > 1 {
            repeatedGroups += 1
            extraLines += group.count - 1
            linesInRepeatedGroups += group.count
            consider(
                Candidate(
                    fingerprint: String(group.key), count: group.count, first: String(group.first.sighting),
                    last: String(group.last.sighting)))
        }
        guard key == .tokens, !group.other.isEmpty else { return nil }
        return [
            group.other, group.key, Substring(group.first.order.text), Substring(group.last.order.text),
            group.first.sighting, group.last.sighting,
        ]
        .joined(separator: "\t")
    }

    /// Keeps the candidate if it is among the best: more lines first, then the smaller fingerprint
    /// (the report's order).
    private mutating func consider(_ candidate: Candidate) {
        let index = candidates.firstIndex { Self.ranksBefore(candidate, $0) } ?? candidates.count
        guard index < AuditReport.listLimit else { return }
        candidates.insert(candidate, at: index)
        if candidates.count > AuditReport.listLimit { candidates.removeLast() }
    }

    /// The report's order for its lists.
    static func ranksBefore(_ a: Candidate, _ b: Candidate) -> Bool {
        (b.count, a.fingerprint) < (a.count, b.fingerprint)
    }

    /// The reduction as `audit merge` takes it (one JSON object).
    package func json() -> String {
        var text = OutputText()
        text.beginObject()
        text.key("audit_reduced")
        text.integer(AuditReport.partialVersion)
        text.member("by", key.rawValue)
        text.key("groups")
        text.integer(groups)
        text.key("repeated_groups")
        text.integer(repeatedGroups)
        text.key("extra_lines")
        text.integer(extraLines)
        text.key("lines_in_repeated_groups")
        text.integer(linesInRepeatedGroups)
        text.key("list")
        text.beginArray()
        for candidate in candidates {
            text.beginObject()
            text.member("fingerprint", candidate.fingerprint)
            text.key("count")
            text.integer(candidate.count)
            text.key("first")
            text.rawValue(candidate.first)
            text.key("last")
            text.rawValue(candidate.last)
            text.endObject()
        }
        text.endArray()
        text.endObject()
        return text.string
    }
}
