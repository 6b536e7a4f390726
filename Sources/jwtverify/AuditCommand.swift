import JWTVerify
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `jwtverify audit`: finds tokens in arbitrary text and reports on each and on the lot.
struct AuditCommand {
    enum Format: String {
        case jsonl, tsv, table, markdown, json, html, partial

        /// A record per token (and per discarded fragment with `--discards`), rather than a report.
        var writesRecords: Bool { self == .jsonl || self == .tsv }
    }

    var keySets = KeySetOptions()
    var flags = PolicyFlags()
    var policy = VerificationPolicy(issuers: nil, audiences: nil)
    var atIssueTime = false
    var format: Format = isatty(1) == 1 ? .table : .jsonl
    var showTokens = false
    var showDiscards = false
    var taggedInput = false
    /// `--partials`: beside the records, a partial report per input file.
    var partials = false
    /// `--reduced-repeats`: the partials track no repeats (the Spark job reduces them from the records).
    var reducedRepeats = false
    /// `--listing`: the whole input's files in order (the Spark job's listing).
    var listingFile: String? = nil
    var quiet = false
    var threads = Processors.online
    var cacheFlags = CacheFlags()
    var inputs: [String] = []
    /// `--files-from`: a file listing more inputs, one path per line (`-`: standard input).
    var filesFrom: String? = nil
    var helpRequested = false

    static let table = OptionTable<AuditCommand>(
        KeySetOptions.options().map { $0.lifted(\.keySets) },
        PolicyFlags.all(optionalClaims: true, face: .audit).map { $0.lifted(\.flags) },
        CacheFlags.options.map { $0.lifted(\.cacheFlags) },
        [
            .value(
                "--at", placeholder: "iat",
                help:
                    "Evaluate each token at its own iat (\"was it valid when issued?\").\nDefault: the current time (or --now)."
            ) {
                options, value, name throws(CommandFailure) in
                guard value == "iat" else { throw .usage("\(name) takes: iat") }
                options.atIssueTime = true
            },
            .value(
                "--format", placeholder: "F",
                help:
                    "jsonl (one object per token found), tsv (the same records as\ntab-separated rows under a header, without provider claims), a\nreport: table, markdown, json, html (one self-contained page), or\npartial (a part's report, for 'audit merge').\nDefault: table on a terminal, jsonl otherwise."
            ) {
                options, value, name throws(CommandFailure) in
                guard let format = Format(rawValue: value) else {
                    throw .usage("\(name) takes jsonl, tsv, table, markdown, json, html or partial")
                }
                options.format = format
            },
            .flag(
                "--show-tokens", help: "Include the raw token in jsonl and tsv records (default: fingerprints\nonly)."
            ) { $0.showTokens = true },
            .flag(
                "--discards",
                help:
                    "jsonl, tsv: also write a record per discarded fragment\n({\"discarded\": REASON, \"file\": ..., \"line\": ...})."
            ) { $0.showDiscards = true },
            .flag(
                "--partials",
                help:
                    "jsonl, tsv: also a partial report per input file (standard input: one),\non a line of its own after that file's records: #partial, a tab, the\npartial as 'audit --format partial' writes it. How the Spark job's\ntasks hand the driver what it merges."
            ) { $0.partials = true },
            .flag(
                "--reduced-repeats",
                help:
                    "With --partials: the partials hold counts only, no distinct token, in\nbounded memory; repeats and shared nonces are reduced from the records\nby 'audit reduce' (the Spark job)."
            ) { $0.reducedRepeats = true },
            .value(
                "--listing", placeholder: "LIST",
                help:
                    "The whole input's files in order, one per line, when this run is one\ntask of a job over them (the Spark job): partials name a tag FILE:LINE\nby the FILE-th file of LIST, and --reduced-repeats orders sightings by\nit."
            ) { options, value, _ in options.listingFile = value },
            .flag(
                "--tagged-input",
                help:
                    "Each input line is TAG<TAB>TEXT, as a stage of a pipeline (the Spark job):\nrecords carry \"tag\" instead of \"file\" and \"line\", and columns and\nthe line limit count from TEXT."
            ) { $0.taggedInput = true },
            .value(
                "--files-from", placeholder: "LIST",
                help:
                    "Also read the files LIST names, one path per line (- for standard\ninput), after the FILE operands; an empty LIST adds none. How each\ntask of the Spark job is handed its files."
            ) {
                options, value, _ in options.filesFrom = value
            },
            .value(
                "--threads", placeholder: "N",
                help: "Verifying threads (default: the number of CPUs); reading and writing run on one more each."
            ) { options, value, name throws(CommandFailure) in
                options.threads = try OptionValue.count(name, value, in: 1...256)
            },
            .flag("-q", "--quiet", help: "jsonl, tsv: no summary line on standard error.") { $0.quiet = true },
        ])

    static let help = """
        USAGE: jwtverify audit --jwks SRC [options] [FILE...]
               jwtverify audit render [--format table|markdown|json|html] REPORT.json|-
               jwtverify audit merge [--format table|markdown|json|html] PARTIAL...
               jwtverify audit reduce tokens|nonces

        Finds every compact JWS in arbitrary text (logs, HAR files, JSON dumps, URLs, form bodies,
        cookies, Authorization headers; URL-encoding and JSON escapes are undone), evaluates each
        through the same verifier and policy as 'verify', and reports per occurrence and on the
        whole. Reads standard input when no FILE is given.

        OPTIONS:
        \(table.help)

        Lines of any length are read whole, in pieces of at most 4 MiB cut between tokens. Only a
        run of 4 MiB with no byte that could end a token has to be cut inside: each such cut is
        counted as unbroken_run, named on standard error, and makes the exit status 1.

        EXIT STATUS: 0 every token found was valid (or none was found), 1 some token was rejected
        or some input could not be read (unbroken_run), 64 usage, 65 unusable key set, 66 input
        missing, 69 remote key set unavailable, 73 --jwks-cache folder cannot be created, 74 I/O
        error.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { options, path throws(CommandFailure) in
            options.inputs.append(path)
        }
        if helpRequested { return }
        policy = try flags.policy(.audit)
        guard try keySets.resolve(for: flags, policy: policy) else {
            throw .usage("--jwks is required (a file, URL, preset or snapshot)")
        }
        if flags.now != nil && atIssueTime { throw .usage("--now and --at iat exclude each other") }
        if reducedRepeats && (!partials || listingFile == nil) {
            throw .usage("--reduced-repeats goes with --partials and --listing")
        }
        if partials && !format.writesRecords {
            throw .usage("--partials goes with --format jsonl or tsv (records); --format partial is the report alone")
        }
        if filesFrom == "-" && (inputs.contains("-") || taggedInput) {
            throw .usage("--files-from - reads the list from standard input, which then holds no tokens")
        }
    }

    /// The FILE operands and then the paths `--files-from` lists; `nil` when `--files-from` named
    /// none and there are no operands (nothing to read, not standard input).
    private func inputPaths() throws(CommandFailure) -> [String]? {
        guard let filesFrom else { return inputs }
        let list = try InputFile.readAll(filesFrom == "-" ? "/dev/stdin" : filesFrom, limit: 64 << 20)
        let listed = list.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        let paths = inputs + listed
        return paths.isEmpty ? nil : paths
    }

    func run() throws(CommandFailure) -> ExitStatus {
        if flags.keysFromTokens && flags.bundleIDs.isEmpty {
            StandardError.write(
                "jwtverify audit: --profile app-store without --bundle-id: bundle IDs are not checked\n")
        }
        let loaded = flags.keysFromTokens ? [] : try KeySetLoader.loadEach(keySets)
        let keys = flags.keysFromTokens ? JWKSet(keys: []) : try KeySetLoader.merge(loaded, sources: keySets.sources)
        // By the kid's exact bytes, as the key set finds keys.
        var sources: [ExactBytes: String] = [:]
        for source in loaded {
            for key in source.keys.keys {
                if let kid = key.keyID, sources[ExactBytes(kid)] == nil { sources[ExactBytes(kid)] = source.source }
            }
        }
        let sourceByKeyID = sources
        let verifier = Verifier(keys: keys, policy: policy, cache: cacheFlags.configuration)
        let time: EvaluationTime = atIssueTime ? .issuedAt : flags.evaluationTime
        var inputs: [InputFile] = []
        if let paths = try inputPaths() { inputs = try InputFile.openAll(paths) }
        defer { for input in inputs { input.close() } }
        let output = OutputSink(writeBehind: true)
        if format == .tsv {
            var header = OutputText()
            header.headerRow(AuditRecord.columns(tagged: taggedInput, showTokens: showTokens))
            output.write(header.finish())
        }
        var report = AuditReport()
        report.conditions.evaluation =
            atIssueTime
            ? .issuedAt
            : flags.keysFromTokens && flags.now == nil
                ? .signedDate : .at(flags.now ?? VerificationPolicy.systemClock().rounded(.down))
        report.conditions.nonceChecked = flags.nonce != nil
        report.conditions.issuerChecked = policy.issuers != nil
        report.conditions.audienceChecked = policy.audiences != nil
        report.conditions.keysFromTokens = flags.keysFromTokens
        report.keepsPlaces = !format.writesRecords
        report.keepsDistinctTokens = format == .partial
        // --partials: the same report, one per input file, beside the records.
        var filePartial = report
        filePartial.keepsPlaces = true
        filePartial.keepsDistinctTokens = !reducedRepeats
        filePartial.tracksRepeats = !reducedRepeats
        let emptyPartial = filePartial
        let listing = try listingFile.map { name throws(CommandFailure) in
            AuditListing(
                names: try InputFile.readAll(name, limit: 1 << 30).split(separator: UInt8(ascii: "\n")).map {
                    String(decoding: $0, as: UTF8.self)
                })
        }
        var combiner = reducedRepeats ? listing.map(AuditRepeatCombiner.init) : nil
        var partialRun: AuditRun? = nil
        func finishPartial() {
            guard let run = partialRun else { return }
            output.write(run.partialLine(filePartial))
            filePartial = emptyPartial
            partialRun = nil
        }
        let options = self
        let runner = BatchRunner(
            threads: threads, lineLimit: Self.lineLimit + (taggedInput ? Self.tagLimit : 0),
            longLines: .split(
                isSeparator: TokenExtractor.isSeparator, searchBytes: Self.lineLimit, headBytes: Self.tagLimit))
        do {
            try runner.run(inputs.map { BatchInput(name: $0.name, fd: $0.fd) }) { batch, range, input in
                options.evaluate(batch, range, file: input.name, verifier: verifier, time: time, sources: sourceByKeyID)
            } consume: { part, _ in
                switch part {
                case .lines(let text, let tokens, let valid, let unread, let partial):
                    report.count(tokens: tokens, valid: valid)
                    for _ in 0..<unread { report.discard(.unbrokenRun) }
                    output.write(text)
                    for run in partial ?? [] {
                        if let current = partialRun, current.end.isContinued(by: run.start) {
                            partialRun?.end = run.end
                        } else {
                            finishPartial()
                            partialRun = AuditRun(at: run.start)
                            partialRun?.end = run.end
                        }
                        for discard in run.discarded { filePartial.discard(discard.reason) }
                        for record in run.records {
                            filePartial.add(listing.map { record.named(by: $0) } ?? record)
                            if let handed = combiner?.add(record) { output.write(handed) }
                        }
                    }
                case .evaluated(let records, let discarded):
                    for discard in discarded { report.discard(discard.reason) }
                    for record in records { report.add(record) }
                }
                return output.failure == nil
            }
        } catch {
            output.flush()
            throw CommandFailure(
                status: .ioError, message: "cannot read \(error.input): \(String(cString: strerror(error.code)))")
        }
        if partials { finishPartial() }
        if var combiner { output.write(combiner.flush()) }
        switch format {
        case .jsonl, .tsv:
            if !quiet {
                StandardError.write(
                    "jwtverify: \(report.tokens) tokens found, \(report.valid) valid, \(report.tokens - report.valid) rejected\n"
                )
                if let counters = verifier.cache?.counters { StandardError.write(VerifyCommand.cacheSummary(counters)) }
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
                "jwtverify: \(unread) cut\(unread == 1 ? "" : "s") inside runs of \(Self.lineLimit >> 20) MiB without a separator "
                    + "(unbroken_run): a token across a cut was not read\n")
        }
        return report.tokens == report.valid && unread == 0 ? .ok : .rejected
    }

    /// The longest piece of a line (or tagged line's text) scanned at once: longer lines are read
    /// in pieces cut at a byte no token or escape can hold (``TokenExtractor/isSeparator(_:)``),
    /// so a line of any length is read whole in bounded memory.
    static let lineLimit = 4 << 20
    /// Room for the tag of a `--tagged-input` line, on top of ``lineLimit``.
    static let tagLimit = 4096

    /// The tokens and discarded fragments of a range of lines, each in input order: for
    /// `--format jsonl` or `tsv` already written as records (on the worker thread), for a report
    /// as values.
    private func evaluate(
        _ batch: LineBatch, _ range: Range<Int>, file: String, verifier: Verifier, time: EvaluationTime,
        sources: [ExactBytes: String]
    ) -> AuditPart {
        let writesLines = format.writesRecords
        let writesCells = format == .tsv
        let columnCount = writesCells ? AuditRecord.columns(tagged: taggedInput, showTokens: showTokens).count : 0
        var text = OutputText()
        if writesLines { text.reserveCapacity(range.count * 1024) }  // a typical record is 700-900 octets
        var tokens = 0
        var valid = 0
        var records: [AuditRecord] = []
        var discarded: [AuditDiscard] = []
        // The tokens found, as spans of their line in the batch (`line` is where it starts) or copies.
        var pending: [(origin: AuditOrigin, found: TokenExtractor.Found, line: Int, columnShift: Int)] = []
        // --partials: the runs of these lines, and the run of each token found and each discard.
        var lineRuns: [AuditRun] = []
        var recordRuns: [Int] = []
        var discardRuns: [Int] = []
        func enterRun(_ place: AuditRun.Place) {
            guard partials else { return }
            if let last = lineRuns.last, last.end.isContinued(by: place) {
                lineRuns[lineRuns.count - 1].end = place
            } else {
                lineRuns.append(AuditRun(at: place))
            }
        }
        func noteDiscards() { while discardRuns.count < discarded.count { discardRuns.append(lineRuns.count - 1) } }
        func noteTokens() { while recordRuns.count < pending.count { recordRuns.append(lineRuns.count - 1) } }
        for index in range {
            let lineNumber = batch.lineNumber(at: index)
            var bytes: Range<Int>
            /// Where this entry's bytes start in its line, and the line's head for later pieces.
            var offset = 0
            var head: [UInt8]? = nil
            switch batch.lines[index] {
            case .text(let range):
                bytes = range
            case .oversized:
                // Not made by the splitting reader; counted all the same.
                enterRun(taggedInput ? .unknown : .file(file))
                discarded.append(
                    AuditDiscard(
                        reason: .unbrokenRun, origin: taggedInput ? .tag(nil) : .line(file: file, number: lineNumber)))
                noteDiscards()
                continue
            case .piece(let range, let piece):
                bytes = range
                offset = piece.offset
                if piece.offset > 0 { head = piece.head }
            }
            var origin = AuditOrigin.line(file: file, number: lineNumber)
            // Columns count from the text; a piece's from its line's.
            var columnShift = offset
            if taggedInput {
                if let head {
                    let tab = head.firstIndex(of: UInt8(ascii: "\t"))
                    origin = .tag(tab.map { String(decoding: head[..<$0], as: UTF8.self) })
                    if let tab { columnShift -= tab + 1 }
                } else {
                    let tab = batch.storage[bytes].firstIndex(of: UInt8(ascii: "\t"))
                    origin = .tag(tab.map { String(decoding: batch.storage[bytes.lowerBound..<$0], as: UTF8.self) })
                    if let tab { bytes = (tab + 1)..<bytes.upperBound }
                }
            }
            if case .tag(let tag) = origin { enterRun(AuditRun.Place(tag: tag)) } else { enterRun(.file(file)) }
            if case .piece(_, let piece) = batch.lines[index], piece.forcedCut {
                discarded.append(AuditDiscard(reason: .unbrokenRun, origin: origin))
            }
            batch.storage.withUnsafeBytes { storage in
                TokenExtractor.scan(UnsafeRawBufferPointer(rebasing: storage[bytes])) { found in
                    pending.append((origin, found, bytes.lowerBound, columnShift))
                } discarded: { reason in
                    discarded.append(AuditDiscard(reason: reason, origin: origin))
                }
            }
            if partials {
                noteDiscards()
                noteTokens()
            }
        }
        let keepsTokens = writesLines && showTokens
        // Through the verifier's batch pipeline, a chunk of tokens at a time.
        var tokenBatch = TokenBatch()
        batch.storage.withUnsafeBytes { storage in
            for group in pending.indices.chunks(of: Verifier.stageSize) {
                tokenBatch.removeAll()
                for (_, found, line, _) in pending[group] {
                    found.token.withBytes(in: UnsafeRawBufferPointer(rebasing: storage[line...])) { token in
                        guard var nonce = flags.nonce else { return tokenBatch.append(bytes: token, nonce: nil) }
                        nonce.withUTF8 { tokenBatch.append(bytes: token, nonce: UnsafeRawBufferPointer($0)) }
                    }
                }
                verifier.evaluate(tokenBatch, at: time, tracing: true, fingerprints: true) {
                    index, token, result, trace in
                    let (origin, found, _, columnShift) = pending[group.lowerBound + index]
                    let outcome = VerificationOutcome(
                        result, trace: trace, token: token, verifier: verifier, time: time)
                    let keySource = outcome.verified ? outcome.keyID.flatMap { sources[ExactBytes($0)] } : nil
                    let record = AuditRecord(
                        origin: origin, column: found.column + columnShift, place: found.place, token: token,
                        keepingToken: keepsTokens, outcome: outcome,
                        keySource: keySource, allowList: policy.algorithms)
                    if writesLines {
                        tokens += 1
                        if record.outcome.verified { valid += 1 }
                        if writesCells {
                            record.appendCells(to: &text)
                        } else {
                            record.appendJSON(to: &text, rules: policy.rules)
                        }
                        if partials { records.append(record) }
                    } else {
                        records.append(record)
                    }
                }
            }
        }
        guard writesLines else { return .evaluated(records: records, discarded: discarded) }
        let unread = discarded.count { $0.reason == .unbrokenRun }
        var partial: [AuditRun]? = nil
        if partials {
            var runs = lineRuns
            for (record, run) in zip(records, recordRuns) { runs[run].records.append(record) }
            for (discard, run) in zip(discarded, discardRuns) { runs[run].discarded.append(discard) }
            partial = runs
        }
        guard showDiscards, !discarded.isEmpty else {
            return .lines(text.finish(), tokens: tokens, valid: valid, unread: unread, partial: partial)
        }
        var discards = OutputText()
        for discard in discarded {
            if writesCells {
                discard.appendCells(to: &discards, columns: columnCount)
            } else {
                discard.appendJSON(to: &discards)
            }
        }
        discards.appendRaw(text.bytes)
        return .lines(discards.finish(), tokens: tokens, valid: valid, unread: unread, partial: partial)
    }
}

/// What a worker hands back for a range of lines, in input order.
enum AuditPart: Sendable {
    /// `--format jsonl` or `tsv`: the records already written, and the counts the summary and
    /// the exit status need (`unread`: ``TokenExtractor/Discard/unbrokenRun`` cuts); with
    /// `--partials`, also the records and discards as values, for the file's partial report.
    case lines(_ text: FinishedOutputText, tokens: Int, valid: Int, unread: Int, partial: PartialInput?)
    /// A report format: the evaluated tokens and the discarded fragments, for ``AuditReport``.
    case evaluated(records: [AuditRecord], discarded: [AuditDiscard])

    /// What the partial reports take from a range of lines (`--partials`): its runs, in order.
    typealias PartialInput = [AuditRun]
}
