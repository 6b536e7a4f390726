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
        var isDebugBuild = false
        assert({ isDebugBuild = true; return true }())
        if isDebugBuild {
            StandardError.write("jwtverify bench: this is a debug build, whose numbers mean nothing; build with 'make release'\n")
            return .configuration
        }
        if options.rawCheck == .multiBuffer && !MultiBufferEngine.isLoaded {
            throw CommandFailure(status: .unavailable, message: "--raw-check multibuffer: the engine is not loaded: \(MultiBufferEngine.description)")
        }
        let corpus = try loadCorpus()
        if !options.json {
            StandardError.write("jwtverify bench: \(corpus.tokens.count) tokens, \(options.threads) thread(s), \(options.rounds) rounds\n")
        }
        let report = ThroughputBenchmark.measure(
            corpus: corpus, threads: options.threads, rounds: options.rounds, repeat: options.presentations, rawCheck: options.rawCheck)
        if options.json {
            print(report.json(label: label))
        } else {
            print(BenchmarkHost.description)
            print(BenchmarkHost.row(label, report))
            if let note = BenchmarkHost.fixedBaseNote(report) { print(note) }
            if let note = BenchmarkHost.rawCheckNote(report) { print(note) }
        }
        return .ok
    }

    /// `--write-corpus DIR`: the generated corpus as files for CLI runs (`jwks.json`, `tokens.txt`
    /// and `nonces.txt`, each token `--repeat` times), instead of measuring.
    private func writeCorpus(to directory: String) throws(CommandFailure) -> ExitStatus {
        if options.appStore { throw .usage("--write-corpus writes key-set corpora; --app-store has none") }
        try Folder.prepare(directory, mode: 0o755, option: "--write-corpus")
        if options.rawCheck == .multiBuffer && !MultiBufferEngine.isLoaded {
            throw CommandFailure(status: .unavailable, message: "--raw-check multibuffer: the engine is not loaded: \(MultiBufferEngine.description)")
        }
        let corpus = try loadCorpus()
        do {
            try corpus.write(to: directory, repeating: options.presentations)
        } catch {
            throw CommandFailure(status: .cannotCreate, message: "--write-corpus \(directory): \(error)")
        }
        StandardError.write("jwtverify bench: wrote \(corpus.tokens.count * options.presentations) \(options.algorithm.name) tokens to \(directory)\n")
        return .ok
    }

    /// The row label: the generated corpus's algorithm, `AppStore`, or `file`.
    private var label: String { options.tokensFile != nil ? "file" : options.appStore ? "AppStore" : options.algorithm.name }

    private func loadCorpus() throws(CommandFailure) -> BenchmarkCorpus {
        guard let tokensFile = options.tokensFile, let jwksFile = options.jwksFile else {
            if options.appStore {
                do {
                    return try BenchmarkCorpus.appStore(count: options.count)
                } catch {
                    throw CommandFailure(status: .internalError, message: "cannot generate an App Store corpus: \(error)")
                }
            }
            do {
                return try BenchmarkCorpus.appleShaped(count: options.count, algorithm: options.algorithm)
            } catch {
                throw CommandFailure(status: .internalError, message: "cannot generate a corpus: \(error)")
            }
        }
        let keys = try KeySetLoader.load(KeySetOptions(sources: [jwksFile]))
        let tokens = try Self.lines(tokensFile)
        guard !tokens.isEmpty else { throw CommandFailure(status: .dataError, message: "\(tokensFile) holds no tokens") }
        var nonces: [String?] = Array(repeating: nil, count: tokens.count)
        if let noncesFile = options.noncesFile {
            let raw = try Self.lines(noncesFile)
            guard raw.count == tokens.count else {
                throw CommandFailure(status: .dataError, message: "\(noncesFile) has \(raw.count) lines for \(tokens.count) tokens")
            }
            nonces = raw.map { String(decoding: $0, as: UTF8.self) }
        }
        return BenchmarkCorpus(
            keys: keys, tokens: tokens, nonces: nonces, issuer: options.issuer, audience: options.audience,
            now: options.now ?? VerificationPolicy.systemClock())
    }

    /// The non-empty lines of a file (CR before LF removed).
    private static func lines(_ path: String) throws(CommandFailure) -> [[UInt8]] {
        let input = try InputFile.openAll([path])[0]
        defer { input.close() }
        let reader = LineReader(fd: input.fd, lineLimit: 1 << 20)
        var lines: [[UInt8]] = []
        do {
            while let batch = try reader.nextBatch(maxLines: 65536, maxBytes: 64 << 20) {
                for case .text(let range) in batch.lines {
                    var line = Array(batch.storage[range])
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    if !line.isEmpty { lines.append(line) }
                }
            }
        } catch {
            throw CommandFailure(status: .ioError, message: "cannot read \(path): \(String(cString: strerror(error.code)))")
        }
        return lines
    }
}
