import JWTVerify
import JWTVerifyTooling

/// `jwtverify audit reduce tokens|nonces`: one task of the Spark job's reduction of repeats and
/// shared nonces (``AuditReduction``), over lines grouped by key on standard input.
struct AuditReduceCommand {
    var key: AuditReduction.Key?
    var helpRequested = false

    static let table = OptionTable<AuditReduceCommand>([])

    static let help = """
        USAGE: jwtverify audit reduce tokens|nonces

        Reduces sightings grouped by key, read from standard input, to what an audit report shows of
        them: how the Spark job finds repeated tokens and nonces shared by distinct tokens where the
        records are, holding one group at a time. Lines are tab-separated and grouped by their
        first field (the job's shuffle sorts them so):

          tokens   FINGERPRINT  NONCE_FINGERPRINT  FILE,LINE,COLUMN  SIGHTING
                   one per occurrence (the nonce empty when the token has none); each token with
                   a nonce is passed on as a 'nonces' line
          nonces   NONCE_FINGERPRINT  FINGERPRINT  FIRST_ORDER  LAST_ORDER  FIRST  LAST
                   one per distinct token

        FILE is the file's position in the input's listing; a SIGHTING is its JSON,
        {"file", "line", "column"}. The last output line is #reduced, a tab and the reduction as
        'jwtverify audit merge' takes it with the partial reports: counts and the report's list
        candidates (at most 100).

        EXIT STATUS: 0 reduced, 64 usage, 65 a line not in the format or the input not grouped.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { options, word throws(CommandFailure) in
            guard options.key == nil, let key = AuditReduction.Key(rawValue: word) else {
                throw .usage(
                    "audit reduce takes one of: " + AuditReduction.Key.allCases.map(\.rawValue).joined(separator: ", "))
            }
            options.key = key
        }
        if !helpRequested && key == nil {
            throw .usage(
                "audit reduce takes one of: " + AuditReduction.Key.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        var reduction = AuditReduction(key ?? .tokens)
        let output = OutputSink()
        var number = 0
        do throws(AuditReport.ParseFailure) {
            while let line = readLine(strippingNewline: true) {
                number += 1
                if let passed = try reduction.add(line) { output.write(passed + "\n") }
            }
            if let passed = reduction.finish() { output.write(passed + "\n") }
        } catch {
            output.flush()
            throw CommandFailure(status: .dataError, message: "audit reduce: line \(number): \(error.message)")
        }
        output.write(AuditReduction.mark + reduction.json() + "\n")
        output.flush()
        return .ok
    }
}
