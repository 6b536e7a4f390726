import JWTVerify

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `jwtverify audit`: finds tokens in arbitrary text and reports on each and on the lot.
struct AuditCommand: ClaimFlags {
    enum Format: String { case jsonl, table, markdown, json }

    var keySets = KeySetOptions()
    var profileOptions = ProfileOptions()
    var issuer: String?
    var audiences: [String] = []
    /// The accepted issuers (from --issuer or a profile); `nil`: not checked.
    var issuers: [String]?
    var nonce: String?
    var leeway = Verifier.defaultLeeway
    var now: Double?
    var atIssueTime = false
    var algorithms = SignatureAlgorithm.defaultAllowed
    var algorithmsGiven = false
    var format: Format = isatty(1) == 1 ? .table : .jsonl
    var showTokens = false
    var showDiscards = false
    var taggedInput = false
    var quiet = false
    var threads = BenchmarkHost.processorCount
    var maxTokenBytes = Verifier.defaultMaxTokenBytes
    var inputs: [String] = []

    static let help = """
        USAGE: jwtverify audit --jwks SRC [options] [FILE...]

        Finds every compact JWS in arbitrary text (logs, HAR files, JSON dumps, URLs, form bodies,
        cookies, Authorization headers; URL-encoding and JSON escapes are undone), evaluates each,
        and reports per occurrence and on the whole. Reads standard input when no FILE is given.

        OPTIONS:
        \(KeySetOptions.help)
          --profile P              apple | apple-notification | firebase | google | oidc: sets the issuer,
                                   algorithms and default key set (with --project ID for firebase).
          --issuer ISS             Required "iss" (optional here: without it, issuers are reported).
          --audience AUD           Accepted "aud", repeatable (optional here, as --issuer).
          --nonce RAW              Raw nonce every token's "nonce" must match.
          --now T                  Evaluate every token at T (Unix seconds or RFC 3339).
          --at iat                 Evaluate each token at its own iat ("was it valid when issued?").
                                   Default: the current time.
          --leeway SECONDS         Clock-skew allowance (default 60).
          --algorithms LIST        Allow-list (default RS256,ES256).
          --format F               jsonl (one object per token found), or a report: table, markdown,
                                   json. Default: table on a terminal, jsonl otherwise.
          --show-tokens            Include the raw token in jsonl records (default: fingerprints only).
          --discards               jsonl: also write a record per discarded fragment
                                   ({"discarded": REASON, "file": ..., "line": ...}).
          --tagged-input           Each input line is TAG<TAB>TEXT, as a stage of a pipeline (the Spark job):
                                   records carry "tag" instead of "file" and "line", and columns and
                                   the line limit count from TEXT.
          --threads N              Worker threads (default: the number of CPUs).
          -q, --quiet              jsonl: no summary line on standard error.
          -h, --help               Show this help.

        EXIT STATUS: 0 every token found was valid (or none was found), 1 some token was rejected,
        64 usage, 65 unusable key set, 66 input missing, 69 remote key set unavailable, 74 I/O error.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        var arguments = Arguments(words)
        while let word = arguments.next() {
            switch word {
            case .operand(let path): inputs.append(path)
            case .option(let name, let inline):
                switch name {
                case "--at":
                    guard try arguments.value(for: name, inline: inline) == "iat" else { throw .usage("--at takes: iat") }
                    atIssueTime = true
                case "--format":
                    let text = try arguments.value(for: name, inline: inline)
                    guard let value = Format(rawValue: text) else { throw .usage("--format takes jsonl, table, markdown or json") }
                    format = value
                case "--show-tokens": showTokens = true
                case "--discards": showDiscards = true
                case "--tagged-input": taggedInput = true
                case "-q", "--quiet": quiet = true
                case "--threads": threads = try OptionValue.count(name, try arguments.value(for: name, inline: inline), in: 1...256)
                default:
                    if try parseClaimFlag(name, inline: inline, &arguments) { continue }
                    if try keySets.parse(name, inline: inline, &arguments) { continue }
                    guard try profileOptions.parse(name, inline: inline, &arguments) else { throw .usage("unknown option \(name)") }
                }
            }
        }
        // A profile fills in the issuer(s), the algorithms and the default key source.
        if let profile = try profileOptions.profile(issuer: issuer, audiences: audiences) {
            issuers = profile.issuers
            if !algorithmsGiven { algorithms = profile.algorithms }
            if let project = profile.project { audiences = [project] }
            if keySets.sources.isEmpty, let source = profile.keySource { keySets.sources = [source.description] }
        } else {
            issuers = issuer.map { [$0] }
        }
        if keySets.sources.isEmpty { throw .usage("--jwks is required (a file, URL, preset or snapshot)") }
        if now != nil && atIssueTime { throw .usage("--now and --at iat exclude each other") }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        let loaded = try KeySetLoader.loadEach(keySets)
        let keys = try KeySetLoader.load(keySets)
        var sources: [String: String] = [:]
        for source in loaded {
            for key in source.keys.keys { if let kid = key.keyID, sources[kid] == nil { sources[kid] = source.source } }
        }
        let sourceByKeyID = sources
        let verifier = Verifier(
            keys: keys, optionalIssuers: issuers, optionalAudiences: audiences.isEmpty ? nil : audiences, algorithms: algorithms,
            leeway: leeway, maxTokenBytes: maxTokenBytes)
        let inputs = try InputFile.openAll(self.inputs)
        let output = OutputSink()
        var report = AuditReport()
        let options = self
        for input in inputs {
            defer { input.close() }
            let reader = LineReader(fd: input.fd, lineLimit: Self.lineLimit + (taggedInput ? Self.tagLimit : 0))
            while true {
                let batch: LineBatch?
                do {
                    batch = try reader.nextBatch(maxLines: 4096, maxBytes: 8 << 20)
                } catch {
                    throw CommandFailure(status: .ioError, message: "cannot read \(input.name): \(String(cString: strerror(error.code)))")
                }
                guard let batch else { break }
                let name = input.name
                let parts = ParallelMap.chunks(count: batch.lines.count, threads: threads) { range in
                    options.evaluate(batch, range, file: name, verifier: verifier, sources: sourceByKeyID)
                }
                for part in parts {
                    var text = JSONText()
                    for discard in part.discarded {
                        report.discard(discard.reason)
                        if format == .jsonl && showDiscards { discard.appendJSON(to: &text) }
                    }
                    for record in part.records {
                        report.add(record)
                        if format == .jsonl { record.appendJSON(to: &text, showToken: showTokens) }
                    }
                    output.write(text.bytes)
                }
            }
        }
        switch format {
        case .jsonl:
            if !quiet { StandardError.write("jwtverify: \(report.tokens) tokens found, \(report.valid) valid, \(report.tokens - report.valid) rejected\n") }
        case .json: output.write(report.json())
        case .table: output.write(report.render(markdown: false))
        case .markdown: output.write(report.render(markdown: true))
        }
        output.flush()
        if output.failure != nil { throw CommandFailure(status: .ioError, message: "cannot write output") }
        return report.tokens == report.valid ? .ok : .rejected
    }

    /// The longest line (or tagged line's text) read; longer ones are `oversized_line`.
    static let lineLimit = 4 << 20
    /// Room for the tag of a `--tagged-input` line, on top of ``lineLimit``.
    static let tagLimit = 4096

    /// The tokens and discarded fragments of a range of lines, each in input order.
    private func evaluate(
        _ batch: LineBatch, _ range: Range<Int>, file: String, verifier: Verifier, sources: [String: String]
    ) -> (records: [AuditRecord], discarded: [AuditDiscard]) {
        var records: [AuditRecord] = []
        var discarded: [AuditDiscard] = []
        for index in range {
            let lineNumber = batch.firstLineNumber + index
            guard case .text(var bytes) = batch.lines[index] else {
                discarded.append(AuditDiscard(reason: .oversizedLine, origin: taggedInput ? .tag(nil) : .line(file: file, number: lineNumber)))
                continue
            }
            var origin = AuditOrigin.line(file: file, number: lineNumber)
            if taggedInput {
                let tab = batch.storage[bytes].firstIndex(of: UInt8(ascii: "\t"))
                origin = .tag(tab.map { String(decoding: batch.storage[bytes.lowerBound..<$0], as: UTF8.self) })
                if let tab { bytes = (tab + 1)..<bytes.upperBound }
                if bytes.count > Self.lineLimit {
                    discarded.append(AuditDiscard(reason: .oversizedLine, origin: origin))
                    continue
                }
            }
            let scan = batch.storage.withUnsafeBytes { TokenExtractor.scan(UnsafeRawBufferPointer(rebasing: $0[bytes])) }
            for reason in scan.discarded { discarded.append(AuditDiscard(reason: reason, origin: origin)) }
            for found in scan.found {
                let peek = UnverifiedToken(peeking: found.token)
                let time = atIssueTime ? peek.claims.issuedAt : (now ?? Verifier.systemClock())
                let result: Result<VerifiedToken, VerificationError>
                if let time {
                    result = found.token.withUnsafeBytes { verifier.evaluate($0, nonce: nonce, at: time) }
                } else {
                    result = .failure(VerificationError(.claimType, detail: "--at iat: the token has no usable iat"))
                }
                let keySource: String? = if case .success(let verified) = result { verified.keyID.flatMap { sources[$0] } } else { nil }
                records.append(
                    AuditRecord(
                        origin: origin, column: found.column, token: found.token, evaluatedAt: time, result: result, peek: peek,
                        keySource: keySource, allowList: algorithms))
            }
        }
        return (records, discarded)
    }
}
