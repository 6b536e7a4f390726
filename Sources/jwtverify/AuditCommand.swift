import JWTVerify
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `jwtverify audit`: finds tokens in arbitrary text and reports on each and on the lot. The
/// work is ``AuditEngine``'s; this opens the keys, inputs and output, shows progress and the
/// summary on standard error, and picks the exit status.
struct AuditCommand {
    typealias Format = AuditOptions.Format
    let options: AuditOptions

    func run() throws(CommandFailure) -> ExitStatus {
        let flags = options.flags
        if flags.keysFromTokens && flags.bundleIDs.isEmpty {
            StandardError.write(
                "jwtverify audit: --profile app-store without --bundle-id: bundle IDs are not checked\n")
        }
        let engine = try makeEngine()
        var inputs: [InputFile] = []
        if let paths = try options.inputPaths() { inputs = try InputFile.openAll(paths) }
        defer { for input in inputs { input.close() } }
        let output = OutputSink(writeBehind: true)
        let progress = ProgressLine(
            enabled: StandardError.isTerminal && !options.quiet,
            totalBytes: ProgressLine.totalSize(of: inputs))
        let report: AuditReport
        do {
            report = try engine.run(inputs.map { BatchInput(name: $0.name, fd: $0.fd) }) { text in
                output.write(text)
                return output.failure == nil
            } progress: {
                progress.update(tokens: $0, bytes: $1)
            }
        } catch {
            output.flush()
            throw CommandFailure(
                status: .ioError, message: "cannot read \(error.input): \(String(cString: strerror(error.code)))")
        }
        progress.finish()
        switch options.format {
        case .jsonl, .tsv:
            if !options.quiet {
                StandardError.write(
                    "jwtverify: \(report.tokens) tokens found, \(report.valid) valid, "
                        + "\(report.tokens - report.valid) rejected"
                        + (report.proofs > 0
                            ? "; \(report.proofs) DPoP proof\(report.proofs == 1 ? "" : "s"), \(report.validProofs) valid, "
                                + "\(report.proofs - report.validProofs) rejected" : "")
                        + "\n")
                if let counters = engine.verifier.cache?.counters {
                    StandardError.write(VerifyCommand.cacheSummary(counters))
                }
            }
        case .json: output.write(report.json())
        case .table: output.write(report.render(markdown: false))
        case .markdown: output.write(report.render(markdown: true))
        case .html: output.write(report.html())
        case .partial: output.write(report.partialJSON())
        }
        output.flush()
        if output.failure != nil { throw CommandFailure(status: .ioError, message: "cannot write output") }
        let unread = report.discarded[TokenExtractor.Discard.unbrokenRun.rawValue] ?? 0
        if unread > 0 {
            StandardError.write(
                "jwtverify: \(unread) cut\(unread == 1 ? "" : "s") inside runs of \(AuditEngine.lineLimit >> 20) MiB "
                    + "without a separator (unbroken_run): a token across a cut was not read\n")
        }
        return report.tokens == report.valid && report.proofs == report.validProofs && unread == 0 ? .ok : .rejected
    }

    /// The engine the options describe: the keys loaded (and which source holds each `kid`), the
    /// evaluation time, the records or report, and the listing for a task of the Spark job.
    private func makeEngine() throws(CommandFailure) -> AuditEngine {
        let flags = options.flags
        let loaded = flags.keysFromTokens ? [] : try KeySetLoader.loadEach(options.keySets)
        let keys =
            flags.keysFromTokens
            ? JWKSet(keys: []) : try KeySetLoader.merge(loaded, sources: options.keySets.sourceNames)
        let verifier = Verifier(keys: keys, policy: options.policy, cache: options.cacheFlags.configuration)
        var engine = AuditEngine(verifier: verifier, time: options.atIssueTime ? .issuedAt : flags.evaluationTime)
        for source in loaded {
            for key in source.keys.keys {
                if let kid = key.keyID, engine.keySources[ExactBytes(kid)] == nil {
                    engine.keySources[ExactBytes(kid)] = source.source
                }
            }
        }
        engine.conditions.evaluation =
            options.atIssueTime
            ? .issuedAt
            : flags.keysFromTokens && flags.now == nil
                ? .signedDate : .at(flags.now ?? VerificationPolicy.systemClock().rounded(.down))
        engine.conditions.nonceChecked = flags.nonce != nil
        engine.conditions.issuerChecked = options.policy.issuers != nil
        engine.conditions.audienceChecked = options.policy.audiences != nil
        engine.conditions.keysFromTokens = flags.keysFromTokens
        engine.nonce = flags.nonce
        engine.records = options.format == .jsonl ? .jsonl : options.format == .tsv ? .tsv : nil
        engine.keepsDistinctTokens = options.format == .partial
        engine.showsTokens = options.showTokens
        engine.showsDiscards = options.showDiscards
        engine.taggedInput = options.taggedInput
        engine.partials = options.partials
        engine.reducedRepeats = options.reducedRepeats
        engine.threads = options.threads
        engine.listing = try options.listingFile.map { name throws(CommandFailure) in
            let lines = try InputFile.readAll(name, limit: 1 << 30).split(separator: UInt8(ascii: "\n"))
            return AuditListing(names: lines.map { String(decoding: $0, as: UTF8.self) })
        }
        return engine
    }
}
