import JWTVerify
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `jwtverify bench`: throughput against the raw OpenSSL limit, for users' own keys and tokens.
struct BenchCommand {
    let options: BenchOptions

    func run() throws(CommandFailure) -> ExitStatus {
        if let directory = options.corpusDirectory { return try writeCorpus(to: directory) }
        if options.rawCheck == .multiBuffer && !MultiBufferEngine.isLoaded {
            throw CommandFailure(
                status: .unavailable,
                message: "--raw-check multibuffer: the engine is not loaded: \(MultiBufferEngine.description)")
        }
        // What the numbers would be of is checked first (in any build): only valid tokens, and a
        // raw limit that can be measured on them.
        let corpus = try loadCorpus()
        try screen(corpus)
        guard RawVerificationLimit(corpus: corpus, check: options.rawCheck).count > 0 else {
            throw CommandFailure(
                status: .dataError,
                message:
                    "no token of the corpus has a signature the raw limit (--raw-check \(options.rawCheck.rawValue)) can check, so no ratio can be measured"
            )
        }
        var isDebugBuild = false
        assert(
            {
                isDebugBuild = true
                return true
            }())
        if isDebugBuild {
            StandardError.write(
                "jwtverify bench: this is a debug build, whose numbers mean nothing; build with 'make release'\n")
            return .configuration
        }
        if !options.json {
            StandardError.write(
                "jwtverify bench: \(corpus.tokens.count) tokens, \(options.threads) thread(s), \(options.rounds) rounds\n"
            )
        }
        let report = ThroughputBenchmark.measure(
            corpus: corpus, threads: options.threads, rounds: options.rounds, repeat: options.presentations,
            rawCheck: options.rawCheck)
        guard report.rawLimitTokensPerSecond > 0, report.rawLimitTokensPerSecond.isFinite else {
            throw CommandFailure(
                status: .internalError,
                message: "the raw limit could not be measured (\(report.rawLimitTokensPerSecond) tokens/s)")
        }
        if options.json {
            print(report.json(label: label))
        } else {
            print(BenchmarkHost.description)
            print(BenchmarkHost.row(label, report))
            if let note = BenchmarkHost.fixedBaseNote(report) { print(note) }
            if let note = BenchmarkHost.rawCheckNote(report) { print(note) }
            print(BenchmarkHost.legend)
        }
        return .ok
    }

    /// Refuses a corpus with rejected tokens (they skip the signature: their rate is not
    /// verification's), saying how many and why, unless `--allow-rejected` asks to measure anyway.
    private func screen(_ corpus: BenchmarkCorpus) throws(CommandFailure) {
        let rejected = corpus.rejections(corpus.verifier)
        guard !rejected.isEmpty else { return }
        let total = rejected.reduce(0) { $0 + $1.count }
        let reasons = rejected.map { "\($0.reason) \($0.count)" }.joined(separator: ", ")
        let what = "\(total) of \(corpus.tokens.count) tokens are rejected (\(reasons))"
        if options.allowRejected {
            StandardError.write(
                "jwtverify bench: warning: \(what); measuring anyway (--allow-rejected): rejected tokens skip the signature\n"
            )
            return
        }
        throw CommandFailure(
            status: .rejected,
            message: "\(what): a rejected token skips the signature, so the numbers would not be verification's; "
                + "fix the keys, tokens, --issuer, --audience or --now, or pass --allow-rejected")
    }

    /// `--write-corpus DIR`: the generated corpus as files for CLI runs (`jwks.json`, `tokens.txt`
    /// and `nonces.txt`, each token `--repeat` times), instead of measuring.
    private func writeCorpus(to directory: String) throws(CommandFailure) -> ExitStatus {
        if options.appStore { throw .usage("--write-corpus writes key-set corpora; --app-store has none") }
        try Folder.prepare(directory, mode: 0o755, option: "--write-corpus")
        if options.rawCheck == .multiBuffer && !MultiBufferEngine.isLoaded {
            throw CommandFailure(
                status: .unavailable,
                message: "--raw-check multibuffer: the engine is not loaded: \(MultiBufferEngine.description)")
        }
        let corpus = try loadCorpus()
        do {
            try corpus.write(to: directory, repeating: options.presentations)
        } catch {
            throw CommandFailure(status: .cannotCreate, message: "--write-corpus \(directory): \(error)")
        }
        StandardError.write(
            "jwtverify bench: wrote \(corpus.tokens.count * options.presentations) \(options.algorithm.name) tokens to \(directory)\n"
        )
        return .ok
    }

    /// The row label: the generated corpus's algorithm, `AppStore`, `AppStore file`, or `file`.
    private var label: String {
        switch (options.tokensFile != nil, options.appStore) {
        case (true, true): "AppStore file"
        case (true, false): "file"
        case (false, true): "AppStore"
        case (false, false): options.algorithm.name
        }
    }

    private func loadCorpus() throws(CommandFailure) -> BenchmarkCorpus {
        if options.appStore, let tokensFile = options.tokensFile {
            let tokens = try Self.requests(tokensFile).tokens
            guard !tokens.isEmpty else {
                throw CommandFailure(status: .dataError, message: "\(tokensFile) holds no tokens")
            }
            return BenchmarkCorpus.appStore(
                tokens: tokens, bundleIDs: options.bundleIDs, appAppleID: options.appAppleID,
                trust: try AppStoreRootFiles.trust(options.appleRoots))
        }
        guard let tokensFile = options.tokensFile, let jwksFile = options.jwksFile else {
            if options.appStore {
                do {
                    return try BenchmarkCorpus.appStore(count: options.count)
                } catch {
                    throw CommandFailure(
                        status: .internalError, message: "cannot generate an App Store corpus: \(error)")
                }
            }
            do {
                return try BenchmarkCorpus.appleShaped(count: options.count, algorithm: options.algorithm)
            } catch {
                throw CommandFailure(status: .internalError, message: "cannot generate a corpus: \(error)")
            }
        }
        let keys = try KeySetLoader.load(KeySetOptions(sources: [jwksFile]))
        var (tokens, nonces) = try Self.requests(tokensFile)
        guard !tokens.isEmpty else {
            throw CommandFailure(status: .dataError, message: "\(tokensFile) holds no tokens")
        }
        if let noncesFile = options.noncesFile {
            let raw = try Self.requests(noncesFile).tokens
            guard raw.count == tokens.count else {
                throw CommandFailure(
                    status: .dataError, message: "\(noncesFile) has \(raw.count) lines for \(tokens.count) tokens")
            }
            nonces = raw.map { String(decoding: $0, as: UTF8.self) }
        }
        let now = options.now ?? VerificationPolicy.systemClock()
        var corpus = BenchmarkCorpus(
            keys: keys, tokens: tokens, nonces: nonces, issuer: options.issuer, audience: options.audience, now: now)
        if options.accessToken {
            corpus.policy = VerificationPolicy.accessToken(
                issuer: options.issuer, audiences: [options.audience], algorithms: Set(SignatureAlgorithm.all)
            ).clock { now }
        }
        if let profile = options.profile { corpus.policy = try Self.policy(profile: profile, options, now: now) }
        return corpus
    }

    /// `--profile`'s policy: the profile with `--audience` (and `--issuer` where it takes one), as
    /// `verify --profile` makes it; with `--skip-nonce`, a nonce checked only where given.
    private static func policy(profile name: String, _ options: BenchOptions, now: Double) throws(CommandFailure)
        -> VerificationPolicy
    {
        var settings = VerificationPolicy.ProfileSettings()
        settings.audiences = [options.audience]
        if ProviderRegistry.profile(named: name)?.settings.contains(.issuer) == true {
            settings.issuer = options.issuer
        }
        var policy: VerificationPolicy
        do {
            policy = try VerificationPolicy.profile(named: name, settings)
        } catch {
            throw .usage("--profile: \(error.description)")
        }
        if options.skipNonce { policy.nonceRequirement = .checkedWhenGiven }
        return policy.clock { now }
    }

    /// The requests of a file, read as `verify` reads its input (``TokenRequest/withLine(_:_:)``):
    /// a bare token per line, or a JSON request `{"token", "nonce"?}`; blank lines skipped.
    private static func requests(_ path: String) throws(CommandFailure) -> (tokens: [[UInt8]], nonces: [String?]) {
        let input = try InputFile.openAll([path])[0]
        defer { input.close() }
        let reader = LineReader(fd: input.fd, lineLimit: 1 << 20)
        var tokens: [[UInt8]] = []
        var nonces: [String?] = []
        var number = 0
        do {
            while let batch = try reader.nextBatch(maxLines: 65536, maxBytes: 64 << 20) {
                for case .text(let range) in batch.lines {
                    number += 1
                    let request = batch.storage[range].withUnsafeBytes { line in
                        TokenRequest.withLine(line) { content -> Result<([UInt8], String?)?, TokenRequest.Problem> in
                            switch content {
                            case .blank: .success(nil)
                            case .problem(let problem): .failure(problem)
                            case .request(let request):
                                .success(
                                    (Array(request.token), request.nonce.map { String(decoding: $0, as: UTF8.self) }))
                            }
                        }
                    }
                    switch request {
                    case .success(nil): continue
                    case .success(let (token, nonce)?):
                        tokens.append(token)
                        nonces.append(nonce)
                    case .failure(let problem):
                        throw CommandFailure(
                            status: .dataError, message: "\(path) line \(number): \(problem.description)")
                    }
                }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(status: .ioError, message: "cannot read \(path): \(error)")
        }
        return (tokens, nonces)
    }
}
