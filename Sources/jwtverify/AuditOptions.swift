import JWTVerify
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The flags of `jwtverify audit`, parsed and validated before any input is read.
struct AuditOptions {
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

    static let table = OptionTable<AuditOptions>(
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
                    "jsonl (one object per token or DPoP proof found), tsv (the\ntokens' records as tab-separated rows under a header, without\nprovider claims; proofs only counted), a\nreport: table, markdown, json, html (one self-contained page), or\npartial (a part's report, for 'audit merge').\nDefault: table on a terminal, jsonl otherwise."
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
            .flag("-q", "--quiet", help: "No progress line, nor (jsonl, tsv) summary line, on standard error.") {
                $0.quiet = true
            },
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
    func inputPaths() throws(CommandFailure) -> [String]? {
        guard let filesFrom else { return inputs }
        let list = try InputFile.readAll(filesFrom == "-" ? "/dev/stdin" : filesFrom, limit: 64 << 20)
        let listed = list.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        let paths = inputs + listed
        return paths.isEmpty ? nil : paths
    }
}
