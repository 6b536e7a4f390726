import JWTVerify

/// The flags of `jwtverify bench`.
struct BenchOptions {
    var jwksFile: String?
    var tokensFile: String?
    var noncesFile: String?
    var issuer = "https://appleid.apple.com"
    var audience = "com.example.app"
    var now: Double?
    var algorithm = SignatureAlgorithm.rs256
    var count = 2000
    var threads = BenchmarkHost.processorCount
    var rounds = 7
    var json = false
    var helpRequested = false

    static let help = """
        USAGE: jwtverify bench [--jwks FILE --tokens FILE [--nonces FILE] --issuer ISS --audience AUD]
                               [--threads N] [--reps N] [--json]

        Measures verification throughput and, in the same run on the same keys and tokens, the raw
        OpenSSL limit: the digest of each signing input plus one EVP_PKEY_verify with a prepared
        context. Full verification is reported as a ratio of that limit.

        Without --tokens, generates its own corpus: Apple-shaped identity tokens signed by three
        fresh keys, each with its own nonce (--algorithm, default RS256; --count, default 2000).

        OPTIONS:
          --jwks FILE          Key set for --tokens.
          --tokens FILE        Tokens, one per line.
          --nonces FILE        Raw nonces, one per line, in the same order as the tokens.
          --issuer ISS         Required iss (default https://appleid.apple.com).
          --audience AUD       Accepted aud (default com.example.app).
          --now T              Evaluate at T (Unix seconds or RFC 3339); default: now.
          --algorithm ALG      Algorithm of the generated corpus (RS256, ES256, PS256, ES384, ...).
          --count N            Tokens in the generated corpus (default 2000).
          --threads N          Worker threads (default: the number of CPUs).
          --reps N             Measured rounds; the median is reported (default 7).
          --json               Print one JSON object: tokens_per_sec, cpu_tokens_per_sec, n, valid,
                               threads, raw_limit_tokens_per_sec, ratio, p50_us, p99_us.
          -h, --help           Show this help.

        The ratio is meaningful for a corpus of valid tokens: rejected tokens skip the signature check.
        Build in release for meaningful numbers (make release); a debug build says so and exits 78.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        var arguments = Arguments(words)
        while let word = arguments.next() {
            guard case .option(let name, let inline) = word else {
                if case .operand(let operand) = word { throw .usage("unexpected argument \"\(operand)\"") }
                continue
            }
            switch name {
            case "-h", "--help": helpRequested = true
            case "--jwks": jwksFile = try arguments.value(for: name, inline: inline)
            case "--tokens": tokensFile = try arguments.value(for: name, inline: inline)
            case "--nonces": noncesFile = try arguments.value(for: name, inline: inline)
            case "--issuer": issuer = try arguments.value(for: name, inline: inline)
            case "--audience": audience = try arguments.value(for: name, inline: inline)
            case "--now": now = try OptionValue.time(name, try arguments.value(for: name, inline: inline))
            case "--algorithm":
                let text = try arguments.value(for: name, inline: inline)
                guard let value = SignatureAlgorithm(name: text) else { throw .usage("--algorithm: unknown \"\(text)\"") }
                algorithm = value
            case "--count": count = try OptionValue.count(name, try arguments.value(for: name, inline: inline), in: 1...1_000_000)
            case "--threads": threads = try OptionValue.count(name, try arguments.value(for: name, inline: inline), in: 1...256)
            case "--reps": rounds = try OptionValue.count(name, try arguments.value(for: name, inline: inline), in: 1...1000)
            case "--json": json = true
            default: throw .usage("unknown option \(name)")
            }
        }
        if helpRequested { return }
        if tokensFile != nil && jwksFile == nil { throw .usage("--tokens needs --jwks") }
        if tokensFile == nil && (jwksFile != nil || noncesFile != nil) { throw .usage("--jwks and --nonces go with --tokens") }
    }
}
