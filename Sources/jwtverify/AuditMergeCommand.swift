import JWTVerify
import JWTVerifyTooling

/// `jwtverify audit merge PARTIAL...`: the partial reports of several parts of an input
/// (`audit --format partial`, one per file or per task), merged in the order given into the report
/// one `audit` run over the whole input would have printed.
struct AuditMergeCommand {
    var format: AuditCommand.Format = .table
    var inputs: [String] = []
    var helpRequested = false

    static let table = OptionTable<AuditMergeCommand>([ReportOutput.formatOption(\.format)])

    static let help = """
        USAGE: jwtverify audit merge [--format table|markdown|json|html] PARTIAL...

        Merges partial reports ('jwtverify audit --format partial', each over a part of the input;
        a file may hold several, one per line) in the order given, and prints the report exactly as one 'jwtverify audit' over all the
        parts, in that order, would have: repeated tokens and nonces shared by distinct tokens are
        found across parts. The parts must have been evaluated alike (the same --now or --at iat).

        OPTIONS:
        \(table.help)

        EXIT STATUS: 0 every token valid, 1 some token rejected or some input not read (as 'audit'),
        64 usage, 65 not a partial report or parts evaluated otherwise, 66 file missing.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { options, path throws(CommandFailure) in
            options.inputs.append(path)
        }
        if !helpRequested && inputs.isEmpty {
            throw .usage("audit merge needs partial reports (or - for standard input)")
        }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        var partials: [JSONValue] = []
        for name in inputs {
            let bytes = try InputFile.readAll(name == "-" ? "/dev/stdin" : name, limit: 1 << 30)
            // One partial as a JSON document, or several as JSON Lines, in order.
            if case .success(let document) = JSONDocument.parse(bytes) {
                partials.append(document.withRoot { $0.value })
                continue
            }
            for (number, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated()
            where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
                switch JSONDocument.parse(Array(line)) {
                case .success(let document): partials.append(document.withRoot { $0.value })
                case .failure(let problem):
                    throw CommandFailure(
                        status: .dataError, message: "\(name): line \(number + 1) is not JSON: \(problem.description)")
                }
            }
        }
        let report: AuditReport
        do {
            report = try AuditReport.merging(partials)
        } catch {
            throw CommandFailure(status: .dataError, message: "not mergeable: \(error.message)")
        }
        try ReportOutput.write(report, as: format)
        let unread = report.discarded[TokenExtractor.Discard.unbrokenRun.rawValue] ?? 0
        return report.tokens == report.valid && report.proofs == report.validProofs && unread == 0 ? .ok : .rejected
    }
}
