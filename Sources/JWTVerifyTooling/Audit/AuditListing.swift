import JWTVerify

/// The input's files in order, as a job split over many tasks lists them (`audit --listing`): what
/// lets each task say where a sighting stands in the whole input, and name a tagged line's place
/// (`FILE:LINE`, the file by its position here) as one `audit` run over the files names it.
package struct AuditListing: Sendable {
    /// The files' names, in input order.
    package let names: [String]
    private let positions: [String: Int]

    /// A listing of `names`, in order (a name listed twice keeps its first position).
    package init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (position, name) in names.enumerated() where positions[name] == nil { positions[name] = position }
        self.positions = positions
    }

    /// A file's position, `nil` when it is not listed.
    package func position(of name: String) -> Int? { positions[name] }

    /// Where an occurrence at `origin`, `column` stands in the input: the file's position, the
    /// line, the column; `nil` for a file not listed or a tag that is no place.
    func order(_ origin: AuditOrigin, column: Int) -> AuditReduction.Order? {
        switch origin {
        case .line(let file, let number):
            guard let position = positions[file] else { return nil }
            return AuditReduction.Order(file: Int64(position), line: Int64(number), column: Int64(column))
        case .tag:
            guard case .tagged(let file, let line) = AuditRun.Place(tag: origin.tag), file < names.count else {
                return nil
            }
            return AuditReduction.Order(file: Int64(file), line: Int64(line), column: Int64(column))
        }
    }

    /// `origin` as one run over the files names it: a tag `FILE:LINE` becomes that file and line.
    package func named(_ origin: AuditOrigin) -> AuditOrigin {
        guard case .tag(let tag) = origin, case .tagged(let file, let line) = AuditRun.Place(tag: tag),
            file < names.count
        else { return origin }
        return .line(file: names[file], number: line)
    }
}

extension AuditOrigin {
    /// The tag, for a tagged line.
    var tag: String? {
        if case .tag(let tag) = self { return tag }
        return nil
    }
}
