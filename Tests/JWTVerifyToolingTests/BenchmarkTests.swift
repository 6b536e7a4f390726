import JWTVerifyTooling
import Testing

@testable import JWTVerify

/// The benchmark's machinery and output contract (never its speed: that is measured, not asserted).
@Suite("benchmark")
struct BenchmarkTests {
    @Test("a generated corpus verifies completely, and the report carries every contract field")
    func reportContract() throws {
        for algorithm in [SignatureAlgorithm.rs256, .es256] {
            let corpus = try BenchmarkCorpus.appleShaped(count: 12, algorithm: algorithm)
            #expect(corpus.tokens.count == 12)
            let report = ThroughputBenchmark.measure(corpus: corpus, threads: 2, rounds: 1)
            #expect(report.n == 12)
            #expect(report.valid == 12)
            #expect(report.threads == 2)
            #expect(report.tokensPerSecond > 0 && report.rawLimitTokensPerSecond > 0 && report.cpuTokensPerSecond > 0)
            #expect(report.p50Microseconds > 0 && report.p99Microseconds >= report.p50Microseconds)
            let json = report.json()
            for key in [
                "\"tokens_per_sec\":", "\"cpu_tokens_per_sec\":", "\"n\":12", "\"valid\":12", "\"threads\":2",
                "\"raw_limit_tokens_per_sec\":", "\"raw_check\":\"openssl\"",
                "\"signature_engine\":\"\(MultiBufferEngine.name)\"", "\"ratio\":", "\"p50_us\":", "\"p99_us\":",
            ] {
                #expect(json.contains(key), "\(key)")
            }
        }
    }

    @Test(
        "a generated App Store corpus: a chain shaped like Apple's that the App Store policy trusts, every token valid and typed, the raw limit on the leaf's key"
    )
    func appStoreCorpus() throws {
        let corpus = try BenchmarkCorpus.appStore(count: 20)
        let report = ThroughputBenchmark.measure(corpus: corpus, threads: 2, rounds: 1)
        #expect(report.n == 20 && report.valid == 20 && report.rawLimitTokensPerSecond > 0)
        let verified = try corpus.verifier.verify(corpus.tokens[3])
        #expect(verified.provider(as: AppStoreClaims.self)?.transactionID == "2000000003")
        // The chain is trusted for its own root only: Apple's refuses it.
        #expect(throws: VerificationError(.untrustedChain)) {
            try Verifier(policy: .appStore(bundleIDs: ["com.example.app"])).verify(corpus.tokens[0])
        }
    }

    @Test("a round's slices cover every token once per presentation, on every thread")
    func slicedRounds() throws {
        let count = 2 * ThroughputBenchmark.sliceTokens + 7
        let corpus = try BenchmarkCorpus.appleShaped(count: count, algorithm: .es256)
        for presentations in [1, 2] {
            let report = ThroughputBenchmark.measure(corpus: corpus, threads: 2, rounds: 2, repeat: presentations)
            #expect(report.valid == count)
            #expect(report.roundRatios.count == 2)
            if presentations == 2 {
                // Batched and per-call passes (a warm-up and 2 rounds of each) of 2 presentations
                // on 2 threads, then one latency pass per thread.
                let lookups = 6 * 2 * 2 * count + 2 * count
                #expect((report.cacheHits ?? 0) + (report.cacheMisses ?? 0) == lookups)
                #expect((report.cacheMisses ?? 0) >= count)
            }
        }
    }

    @Test("the ratio is the median of the rounds' own ratios, and --json shows their spread")
    func pairedRatio() throws {
        let corpus = try BenchmarkCorpus.appleShaped(count: 8, algorithm: .rs256)
        let report = ThroughputBenchmark.measure(corpus: corpus, threads: 1, rounds: 5)
        #expect(report.roundRatios.count == 5)
        let sorted = report.roundRatios.sorted()
        #expect(report.ratio == sorted[2])
        #expect(report.roundRatios.allSatisfy { $0 > 0 })
        let json = report.json()
        #expect(json.contains("\"ratio_min\":") && json.contains("\"ratio_max\":"))
        // Made up rounds: the median of 0.5, 0.9 and 1.0 is 0.9, whatever the medians of the rates.
        var made = report
        made.roundRatios = [1.0, 0.5, 0.9]
        made.tokensPerSecond = 1
        made.rawLimitTokensPerSecond = 4
        #expect(made.ratio == 0.9)
        #expect(BenchmarkHost.row("RS256", made).contains(" 0.500–1.000 "))
        made.roundRatios = []
        #expect(made.ratio == 0.25)
        #expect(!BenchmarkHost.row("RS256", made).contains("–"))
    }

    @Test("the raw limit checks exactly the corpus's signatures")
    func rawLimit() throws {
        let corpus = try BenchmarkCorpus.appleShaped(count: 9, algorithm: .es256)
        let raw = RawVerificationLimit(corpus: corpus)
        #expect(raw.count == 9)
        #expect(raw.runOnce() == 9)
        // Slices, as a round interleaves them with the full pass, cover the corpus exactly.
        #expect(raw.run(0..<4) == 4)
        #expect(raw.run(4..<9) == 5)
        #expect(raw.run(3..<3) == 0)
    }

    @Test(
        "the multi-buffer limit verifies what OpenSSL's verifies, whole and in slices that cut its lane groups",
        .enabled(if: MultiBufferEngine.isLoaded))
    func rawLimitMultiBuffer() throws {
        let generated = try BenchmarkCorpus.appleShaped(count: 40, algorithm: .rs256)
        var tokens = generated.tokens
        for index in [5, 17, 18, 39] {
            let last = tokens[index].count - 3
            tokens[index][last] = tokens[index][last] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        }
        let corpus = BenchmarkCorpus(
            keys: generated.keys, tokens: tokens, nonces: generated.nonces, issuer: generated.issuer,
            audience: generated.audience, now: generated.now)
        let openSSL = RawVerificationLimit(corpus: corpus, check: .openSSL)
        let lanes = RawVerificationLimit(corpus: corpus, check: .multiBuffer)
        #expect(openSSL.runOnce() == 36)
        #expect(lanes.runOnce() == 36)
        var sliced = 0
        let cuts = [0, 3, 11, 12, 29, 40]
        for i in 1..<cuts.count { sliced += lanes.run(cuts[i - 1]..<cuts[i]) }
        #expect(sliced == 36)
    }

    @Test("the library's check verifies what OpenSSL's verifies, RS256 through the key's chain")
    func rawLimitLibraryCheck() throws {
        let corpus = try BenchmarkCorpus.appleShaped(count: 9, algorithm: .rs256)
        #expect(corpus.keys.keys.allSatisfy { $0.key?.rsaChain != nil })
        let openSSL = RawVerificationLimit(corpus: corpus, check: .openSSL)
        let library = RawVerificationLimit(corpus: corpus, check: .library)
        #expect(openSSL.count == 9 && library.count == 9)
        #expect(openSSL.runOnce() == 9)
        #expect(library.runOnce() == 9)
        #expect(library.run(2..<7) == 5)
        let report = ThroughputBenchmark.measure(corpus: corpus, threads: 1, rounds: 1, rawCheck: .library)
        #expect(report.rawCheck == .library && report.valid == 9)
        #expect(report.json().contains("\"raw_check\":\"library\""))
        #expect(BenchmarkHost.rawCheckNote(report) != nil)
    }

    @Test("the raw limit covers EdDSA too")
    func rawLimitEdDSA() throws {
        let corpus = try BenchmarkCorpus.appleShaped(count: 6, algorithm: .edDSA)
        let raw = RawVerificationLimit(corpus: corpus)
        #expect(raw.count == 6)
        #expect(raw.runOnce() == 6)
        #expect(raw.runOnce() == 6)
    }
}
