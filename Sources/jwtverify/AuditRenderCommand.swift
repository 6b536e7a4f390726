import JWTVerify
import JWTVerifyTooling

/// `jwtverify audit render REPORT.json`: a saved report (`audit --format json`, or the Spark job's
/// `report.json`) printed in another format by the same renderer `audit` uses, so there is one.
struct AuditRenderCommand {
    var format: AuditCommand.Format = .table
    var input: String?
    var helpRequested = false

    static let table = OptionTable<AuditRenderCommand>([ReportOutput.formatOption(\.format)])

    static let help = """
        USAGE: jwtverify audit render [--format table|markdown|json|html] REPORT.json|-

        Renders a report saved by 'jwtverify audit --format json' (or the Spark job's report.json)
        exactly as 'audit' would have printed it in that format.

        OPTIONS:
        \(table.help)

        EXIT STATUS: 0 rendered, 64 usage, 65 not a report, 66 file missing.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { options, path throws(CommandFailure) in
            guard options.input == nil else { throw .usage("audit render takes one report") }
            options.input = path
        }
        if !helpRequested && input == nil { throw .usage("audit render needs a report file (or - for standard input)") }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        let name = input ?? "-"
        let bytes = try InputFile.readAll(name == "-" ? "/dev/stdin" : name, limit: 256 << 20)
        let report: AuditReport
        switch JSONDocument.parse(bytes) {
        case .success(let document):
            do {
                report = try document.withRoot { root throws(AuditReport.ParseFailure) in
                    try AuditReport(json: root.value)
                }
            } catch {
                throw CommandFailure(status: .dataError, message: "\(name): not an audit report: \(error.message)")
            }
        case .failure(let problem):
            throw CommandFailure(status: .dataError, message: "\(name): not JSON: \(problem.description)")
        }
        try ReportOutput.write(report, as: format)
        return .ok
    }
}
