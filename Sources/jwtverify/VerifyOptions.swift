import JWTVerify

/// The flags of `jwtverify verify`, parsed and validated before any input is read.
struct VerifyOptions: ClaimFlags {
    var keySets = KeySetOptions()
    var profileOptions = ProfileOptions()
    /// The profile, once the flags are read.
    var profile: Profile?
    var issuer: String?
    var audiences: [String] = []
    var nonce: String?
    var leeway = Verifier.defaultLeeway
    var now: Double?
    var algorithms = SignatureAlgorithm.defaultAllowed
    var algorithmsGiven = false
    var maxTokenBytes = Verifier.defaultMaxTokenBytes
    var threads = VerifyOptions.defaultThreads
    var inputs: [String] = []
    var helpRequested = false

    static var defaultThreads: Int { max(1, Int(sysconfValue())) }

    static let help = """
        USAGE: jwtverify verify --jwks SRC --issuer ISS --audience AUD [options] [FILE...]
               jwtverify verify --profile apple|apple-notification|google --audience AUD [options] [FILE...]
               jwtverify verify --profile firebase --project ID [options] [FILE...]

        Verifies compact JWS tokens (JWTs), one per input line, and prints one JSON object per
        line on stdout, in input order. Reads standard input when no FILE is given (or FILE is -).

        Input lines are either a bare token or a JSON object:
            {"token": "<compact JWS>", "nonce": "<raw nonce>", "id": <any JSON>}
        ("nonce" and "id" are optional; other members are ignored; "payload" may stand for "token",
        as in Apple's notification bodies). An empty line, or one that is
        not a token, is reported as "malformed"; a trailing CR is removed from bare lines.

        OPTIONS:
        \(KeySetOptions.help)
        \(ProfileOptions.help)
          --issuer ISS             Required "iss", compared exactly.
          --audience AUD           Accepted "aud". Repeatable: any of them is accepted.
          --nonce RAW              Raw nonce for lines without their own; the token's "nonce" must be
                                   the lowercase hex SHA-256 of it.
          --leeway SECONDS         Clock-skew allowance for exp/nbf/iat (default 60).
          --now T                  Evaluate at T: Unix seconds (fractions allowed) or RFC 3339
                                   (e.g. 2023-11-14T22:30:00Z). Default: the current time.
          --algorithms LIST        Comma-separated allow-list (default RS256,ES256). Known:
                                   RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA.
          --max-token-bytes N      Longest token accepted (default 65536); longer ones are "too_large".
          --threads N              Worker threads (default: the number of CPUs).
          -h, --help               Show this help.

        OUTPUT (one JSON object per input line):
          line, file (only with several inputs), id (when given), valid, reason, detail,
          alg, kid, iss, sub, aud, exp, iat, claims_verified (false: read from a rejected token,
          not trusted). A summary (totals and counts by reason) goes to stderr.

        EXIT STATUS:
          0 every token valid, 1 some token rejected, 64 usage error, 65 unusable key set,
          66 input file missing or unreadable, 69 remote key set unavailable, 70 internal error,
          74 I/O error.
        """

    /// Parses the words after `verify`.
    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        var arguments = Arguments(words)
        while let word = arguments.next() {
            switch word {
            case .operand(let path):
                inputs.append(path)
            case .option(let name, let inline):
                switch name {
                case "-h", "--help":
                    helpRequested = true
                case "--max-token-bytes":
                    maxTokenBytes = try OptionValue.count(name, try arguments.value(for: name, inline: inline), in: 1...(1 << 30))
                case "--threads": threads = try OptionValue.count(name, try arguments.value(for: name, inline: inline), in: 1...256)
                default:
                    if try parseClaimFlag(name, inline: inline, &arguments) { continue }
                    if try keySets.parse(name, inline: inline, &arguments) { continue }
                    guard try profileOptions.parse(name, inline: inline, &arguments) else { throw .usage("unknown option \(name)") }
                }
            }
        }
        if helpRequested { return }
        profile = try profileOptions.profile(issuer: issuer, audiences: audiences)
        if keySets.sources.isEmpty, let source = profile?.keySource { keySets.sources = [source.description] }
        if keySets.sources.isEmpty { throw .usage("--jwks is required") }
        if profile == nil && issuer == nil { throw .usage("--issuer is required (or --profile)") }
        if profile?.project == nil && audiences.isEmpty { throw .usage("--audience is required (repeat it to accept several)") }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func sysconfValue() -> Int { sysconf(Int32(_SC_NPROCESSORS_ONLN)) }

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
