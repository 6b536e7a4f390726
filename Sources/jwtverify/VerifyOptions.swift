import JWTVerify
import JWTVerifyTooling

/// The flags of `jwtverify verify`, parsed and validated before any input is read.
struct VerifyOptions {
    var keySets = KeySetOptions()
    var flags = PolicyFlags()
    /// The policy, once the flags are read.
    var policy = VerificationPolicy(issuers: nil, audiences: nil)
    var threads = VerifyOptions.defaultThreads
    var cacheFlags = CacheFlags()
    var inputs: [String] = []
    var helpRequested = false

    static var defaultThreads: Int { Processors.online }

    static let table = OptionTable<VerifyOptions>(
        KeySetOptions.options().map { $0.lifted(\.keySets) },
        PolicyFlags.all(optionalClaims: false, face: .verify).map { $0.lifted(\.flags) },
        CacheFlags.options.map { $0.lifted(\.cacheFlags) },
        [
            .value(
                "--threads", placeholder: "N",
                help: "Verifying threads (default: the number of CPUs); reading and writing run on one more each."
            ) { options, value, name throws(CommandFailure) in
                options.threads = try OptionValue.count(name, value, in: 1...256)
            }
        ])

    static let help = """
        USAGE: jwtverify verify --jwks SRC --issuer ISS --audience AUD [options] [FILE...]
        \(PolicyFlags.profileUsage("verify", operands: "[FILE...]").map { "       " + $0 }.joined(separator: "\n"))

        Verifies compact JWS tokens (JWTs), one per input line, and prints one JSON object per
        line on stdout, in input order. Reads standard input when no FILE is given (or FILE is -).

        Input lines are either a bare token or a JSON object:
            {"token": "<compact JWS>", "nonce": "<raw nonce>", "id": <any JSON>}
        ("nonce" and "id" are optional; other members are ignored; Apple's "payload" and
        "signedPayload" may stand for "token"). Whitespace (a CR before the newline included)
        and a "Bearer " scheme around a token are taken away, in bare lines and "token" fields
        alike. A blank line is skipped (no output; the summary counts it); a line that is not a
        token is reported as "malformed".

        OPTIONS:
        \(table.help)

        OUTPUT (one JSON object per input line):
          line, file (only with several inputs), id (when given), valid, reason, detail,
          alg, kid, iss, sub, aud, exp, iat, claims_verified (false: read from a rejected token,
          not trusted), and with --profile the typed "claims" (and "event"). A summary (totals and
          counts by reason) goes to stderr.

        EXIT STATUS:
          0 every token valid, 1 some token rejected, 64 usage error, 65 unusable key set,
          66 input file missing or unreadable, 69 remote key set unavailable, 70 internal error,
          73 --jwks-cache folder cannot be created, 74 I/O error.
        """

    /// The verified-token cache `--cache` asks for, if any.
    var cache: VerifiedTokenCache.Configuration? { cacheFlags.configuration }

    /// Parses the words after `verify`.
    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { options, path throws(CommandFailure) in
            options.inputs.append(path)
        }
        if helpRequested { return }
        policy = try flags.policy(.service)
        guard try keySets.resolve(for: flags, policy: policy) else { throw .usage("--jwks is required") }
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
