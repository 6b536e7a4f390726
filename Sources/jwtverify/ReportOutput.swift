import JWTVerify
import JWTVerifyTooling

/// How `audit render` and `audit merge` print a report: the `--format` they take and the output.
enum ReportOutput {
    /// `--format table|markdown|json|html`, into `path`.
    static func formatOption<Command>(_ path: any WritableKeyPath<Command, AuditCommand.Format> & Sendable) -> Option<
        Command
    > {
        .value("--format", placeholder: "F", help: "table (default), markdown, json or html.") {
            options, value, name throws(CommandFailure) in
            guard let format = AuditCommand.Format(rawValue: value), !format.writesRecords, format != .partial else {
                throw .usage("\(name) takes table, markdown, json or html")
            }
            options[keyPath: path] = format
        }
    }

    /// Prints `report` in `format` on standard output.
    static func write(_ report: AuditReport, as format: AuditCommand.Format) throws(CommandFailure) {
        let output = OutputSink()
        switch format {
        case .json: output.write(report.json())
        case .markdown: output.write(report.render(markdown: true))
        case .html: output.write(report.html())
        case .table, .jsonl, .tsv, .partial: output.write(report.render(markdown: false))
        }
        output.flush()
        if output.failure != nil { throw CommandFailure(status: .ioError, message: "cannot write output") }
    }
}
