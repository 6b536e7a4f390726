import JWTVerify
import JWTVerifyTooling

/// The flags of `jwtverify bench`.
struct BenchOptions {
    var jwksFile: String?
    var tokensFile: String?
    var noncesFile: String?
    var issuer = "https://appleid.apple.com"
    var audience = "com.example.app"
    var now: Double?
    var algorithm = SignatureAlgorithm.rs256
    /// `--app-store`: App Store signed data instead of identity tokens: generated, or the
    /// `--tokens` under `--bundle-id` and `--apple-root`.
    var appStore = false
    /// `--bundle-id`: with `--app-store --tokens`, the accepted bundle IDs.
    var bundleIDs: [String] = []
    /// `--apple-root`: with `--app-store --tokens`, the roots (Apple Root CA - G3 unless given).
    var appleRoots: [String] = []
    /// `--app-apple-id`: with `--app-store --tokens`, the app's Apple ID.
    var appAppleID: Int64?
    /// `--access-token`: the `--tokens` are RFC 9068 access tokens, verified with the access-token profile.
    var accessToken = false
    /// `--profile`: the `--tokens` verified under this profile's checks, as `verify --profile` makes them.
    var profile: String?
    /// `--skip-nonce`: with `--profile`, a nonce checked only where a token's line gives one (as `audit` does).
    var skipNonce = false
    var count = 2000
    var threads = Processors.online
    var rounds = 7
    var presentations = 1
    var rawCheck = RawVerificationLimit.Check.openSSL
    var json = false
    /// `--allow-rejected`: measure a corpus with rejected tokens anyway.
    var allowRejected = false
    /// `--write-corpus`: write the corpus to this folder instead of measuring.
    var corpusDirectory: String?
    var helpRequested = false

    static let table = OptionTable<BenchOptions>([
        .value("--jwks", placeholder: "FILE", help: "Key set for --tokens.") { $0.jwksFile = $1 },
        .value(
            "--tokens", placeholder: "FILE",
            help: "Tokens, one per line, as verify reads them: a bare token or a JSON request\n{\"token\", \"nonce\"?}."
        ) { $0.tokensFile = $1 },
        .value("--nonces", placeholder: "FILE", help: "Raw nonces, one per line, in the same order as the tokens.") {
            $0.noncesFile = $1
        },
        .value("--issuer", placeholder: "ISS", help: "Required iss (default https://appleid.apple.com).") {
            $0.issuer = $1
        },
        .value("--audience", placeholder: "AUD", help: "Accepted aud (default com.example.app).") { $0.audience = $1 },
        .value("--now", placeholder: "T", help: "Evaluate at T (Unix seconds or RFC 3339); default: now.") {
            options, value, name throws(CommandFailure) in
            options.now = try OptionValue.time(name, value)
        },
        .value(
            "--algorithm", placeholder: "ALG",
            help: "Algorithm of the generated corpus (RS256, ES256, PS256, ES384, ...)."
        ) {
            options, value, name throws(CommandFailure) in
            guard let algorithm = SignatureAlgorithm(name: value) else { throw .usage("\(name): unknown \"\(value)\"") }
            options.algorithm = algorithm
        },
        .flag(
            "--app-store",
            help:
                "App Store signed data, verified with --profile app-store's checks, each\ntoken at its signedDate: "
                + "the --tokens (with --bundle-id), or generated\ntransactions, ES256 under a fresh chain shaped like "
                + "Apple's (x5c). The raw\nlimit checks every signature a token carries (a notification's nested\n"
                + "ones too) with its x5c leaf's key."
        ) { $0.appStore = true },
        .value("--bundle-id", placeholder: "ID", help: "With --app-store --tokens: an accepted bundle ID (repeatable).")
        {
            $0.bundleIDs.append($1)
        },
        .value(
            "--apple-root", placeholder: "FILE",
            help:
                "With --app-store --tokens: a trusted root, PEM or DER (repeatable;\nreplaces the bundled Apple Root CA - G3)."
        ) { $0.appleRoots.append($1) },
        .value(
            "--app-apple-id", placeholder: "N",
            help:
                "With --app-store --tokens: the app's Apple ID (production notifications,\nAppTransactions and realtime requests)."
        ) { options, value, name throws(CommandFailure) in
            guard let number = Int64(value), number > 0 else { throw .usage("\(name) takes a positive integer") }
            options.appAppleID = number
        },
        .flag(
            "--access-token",
            help:
                "The --tokens are RFC 9068 access tokens: verify them with --profile\naccess-token's checks (typ at+jwt, client_id, jti, scope) under --issuer and\n--audience."
        ) { $0.accessToken = true },
        .value(
            "--profile", placeholder: "P",
            help:
                "With --jwks and --tokens: verify under profile P's checks, as verify --profile P\nmakes them "
                + "(--audience, and --issuer where P takes one; profiles that need other\nsettings are verify's alone)."
        ) { options, value, name throws(CommandFailure) in
            guard VerificationPolicy.profileNames.containsExactly(value) else {
                throw .usage("\(name) takes " + VerificationPolicy.profileNames.joined(separator: ", "))
            }
            options.profile = value
        },
        .flag(
            "--skip-nonce",
            help: "With --profile: check a nonce only where a token's line gives one, as audit\ndoes."
        ) { $0.skipNonce = true },
        .value("--count", placeholder: "N", help: "Tokens in the generated corpus (default 2000).") {
            options, value, name throws(CommandFailure) in
            options.count = try OptionValue.count(name, value, in: 1...1_000_000)
        },
        .value("--threads", placeholder: "N", help: "Worker threads (default: the number of CPUs).") {
            options, value, name throws(CommandFailure) in
            options.threads = try OptionValue.count(name, value, in: 1...256)
        },
        .value("--reps", placeholder: "N", help: "Measured rounds; the median is reported (default 7).") {
            options, value, name throws(CommandFailure) in
            options.rounds = try OptionValue.count(name, value, in: 1...1000)
        },
        .value(
            "--repeat", placeholder: "K",
            help:
                "Present each token K times, round-robin over the whole corpus, through a\nverifier with a verified-token cache (reports cache_hits, cache_misses);\nwith --write-corpus, write each token K times."
        ) {
            options, value, name throws(CommandFailure) in
            options.presentations = try OptionValue.count(name, value, in: 1...100_000)
        },
        .value(
            "--raw-check", placeholder: "CHECK",
            help:
                "What checks the raw limit's signatures: openssl (EVP_PKEY_verify, the\ndefault), library (the Montgomery chain JWTVerify uses for RS256, RS384,\nRS512; then the ratio is the share of a token's time that is the check itself)\nor multibuffer (RS256, RS384, RS512 eight to a call through crypto_mb, the\nengine batches use; exit 69 where it is not loaded)."
        ) {
            options, value, name throws(CommandFailure) in
            guard let check = RawVerificationLimit.Check(rawValue: value) else {
                throw .usage("\(name): openssl, library or multibuffer, not \"\(value)\"")
            }
            options.rawCheck = check
        },
        .value(
            "--write-corpus", placeholder: "DIR",
            help:
                "Write the generated corpus to DIR (jwks.json, tokens.txt, nonces.txt) for\nCLI runs, instead of measuring; works in a debug build too."
        ) {
            $0.corpusDirectory = $1
        },
        .flag(
            "--allow-rejected",
            help:
                "Measure even when some tokens are rejected (they skip the signature, so\nthe numbers are not verification's); without it, bench refuses and exits 1."
        ) {
            $0.allowRejected = true
        },
        .flag(
            "--json",
            help:
                "Print one JSON object: label (the algorithm, or file), tokens_per_sec, cpu_tokens_per_sec, n, valid,\nthreads, raw_limit_tokens_per_sec, raw_check, ratio (the median of the rounds' own\nratios), ratio_min, ratio_max, p50_us, p99_us."
        ) { $0.json = true },
    ])

    static let help = """
        USAGE: jwtverify bench [--jwks FILE --tokens FILE [--nonces FILE] --issuer ISS --audience AUD]
                               [--profile P [--skip-nonce] | --access-token]
                               [--threads N] [--reps N] [--raw-check CHECK] [--json]
               jwtverify bench --app-store [--tokens FILE --bundle-id ID... [--app-apple-id N] [--apple-root FILE...]] [...]

        Measures verification throughput and, in the same run on the same keys and tokens, the raw
        OpenSSL limit: the digest of each signing input plus one EVP_PKEY_verify with a prepared
        context. Full verification is reported as a ratio of that limit. JWTVerify checks RS256,
        RS384 and RS512 signatures without EVP_PKEY_verify (a chain of Montgomery products per key),
        so their ratio can exceed 1; --raw-check library times that check instead.

        Without --tokens, generates its own corpus: Apple-shaped identity tokens signed by three
        fresh keys, each with its own nonce (--algorithm, default RS256; --count, default 2000).

        OPTIONS:
        \(table.help)

        Every token is verified once before measuring: when any is rejected, bench says how many and
        why and exits 1 (a rejected token skips the signature, so the numbers would not be
        verification's), unless --allow-rejected. A raw limit that cannot be measured is an error
        (exit 65), never a ratio. Build in release for meaningful numbers (make release); a debug
        build says so and exits 78.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { _, operand throws(CommandFailure) in
            throw .usage("unexpected argument \"\(operand)\"")
        }
        if helpRequested { return }
        if appStore {
            if jwksFile != nil || noncesFile != nil || now != nil {
                throw .usage(
                    "--app-store takes no --jwks, --nonces or --now: keys come from x5c, times from signedDate")
            }
            if tokensFile != nil && bundleIDs.isEmpty { throw .usage("--app-store --tokens needs --bundle-id") }
            if tokensFile == nil && !(bundleIDs.isEmpty && appleRoots.isEmpty && appAppleID == nil) {
                throw .usage("--bundle-id, --app-apple-id and --apple-root go with --app-store --tokens")
            }
            if accessToken { throw .usage("--app-store and --access-token are two corpora; choose one") }
            if profile != nil { throw .usage("--app-store is verified with --profile app-store's checks already") }
            if skipNonce { throw .usage("--skip-nonce goes with --profile") }
            return
        }
        if !(bundleIDs.isEmpty && appleRoots.isEmpty && appAppleID == nil) {
            throw .usage("--bundle-id, --app-apple-id and --apple-root go with --app-store --tokens")
        }
        if tokensFile != nil && jwksFile == nil { throw .usage("--tokens needs --jwks") }
        if tokensFile == nil && (jwksFile != nil || noncesFile != nil) {
            throw .usage("--jwks and --nonces go with --tokens")
        }
        if accessToken && tokensFile == nil { throw .usage("--access-token measures --tokens FILE (with --jwks)") }
        if let profile {
            if tokensFile == nil { throw .usage("--profile measures --tokens FILE (with --jwks)") }
            if accessToken { throw .usage("--access-token is --profile access-token's corpus; choose one") }
            if profile == "app-store" { throw .usage("--profile app-store: use --app-store") }
        }
        if skipNonce && profile == nil { throw .usage("--skip-nonce goes with --profile") }
    }
}
