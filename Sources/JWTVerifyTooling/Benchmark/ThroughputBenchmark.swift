import Dispatch
import JWTVerify
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One measurement: full verification against the raw OpenSSL limit, on the same tokens, keys and
/// thread count, in the same process.
package struct ThroughputReport: Sendable {
    /// Tokens in the corpus.
    package var n: Int
    /// Tokens the verifier accepted (per pass).
    package var valid: Int
    /// Worker threads.
    package var threads: Int
    /// Full verification, tokens per second of wall time (median round).
    package var tokensPerSecond: Double
    /// Full verification, tokens per second of CPU time (all threads).
    package var cpuTokensPerSecond: Double
    /// Digest + `EVP_PKEY_verify` only, tokens per second (median round, same threads).
    package var rawLimitTokensPerSecond: Double
    /// What checked the raw limit's signatures (``RawVerificationLimit/Check``).
    package var rawCheck: RawVerificationLimit.Check = .openSSL
    /// Median and 99th-percentile time of one full verification, in microseconds.
    package var p50Microseconds: Double
    package var p99Microseconds: Double
    /// With P-256 keys: full verification one token per call, as a service calling `verify` does
    /// (``tokensPerSecond`` is the batch faces' way: the verifier's batch entry point).
    package var perCallTokensPerSecond: Double? = nil
    /// Fixed-base ES256 tables alive at the end of the run, and the heap they hold.
    package var fixedBaseTables = 0
    package var fixedBaseTableBytes = 0
    /// With `--repeat`: the verified-token cache's hits and misses over the whole run.
    package var cacheHits: Int? = nil
    package var cacheMisses: Int? = nil

    /// Full verification as a fraction of the raw limit: the median over rounds of each round's
    /// own ratio (its full-verification pass against the raw pass interleaved with it), so a round
    /// the machine slowed counts against both sides of its ratio alike. Without rounds, the ratio
    /// of the medians.
    package var ratio: Double {
        if !roundRatios.isEmpty { return ThroughputBenchmark.median(roundRatios) }
        return rawLimitTokensPerSecond > 0 ? tokensPerSecond / rawLimitTokensPerSecond : 0
    }
    /// Each round's full-verification rate over the raw rate of the same round.
    package var roundRatios: [Double] = []

    /// The report as one JSON object (the `jwtverify bench --json` contract).
    package func json(label: String? = nil) -> String {
        var text = OutputText()
        text.beginObject()
        if let label {
            text.key("label")
            text.string(label)
        }
        text.key("n")
        text.integer(n)
        text.key("valid")
        text.integer(valid)
        text.key("threads")
        text.integer(threads)
        text.key("tokens_per_sec")
        text.number((tokensPerSecond * 10).rounded() / 10)
        text.key("cpu_tokens_per_sec")
        text.number((cpuTokensPerSecond * 10).rounded() / 10)
        text.key("raw_limit_tokens_per_sec")
        text.number((rawLimitTokensPerSecond * 10).rounded() / 10)
        text.key("raw_check")
        text.string(rawCheck.rawValue)
        text.key("signature_engine")
        text.string(MultiBufferEngine.name)
        text.key("ratio")
        text.number((ratio * 10000).rounded() / 10000)
        if !roundRatios.isEmpty {
            text.key("ratio_min")
            text.number((roundRatios.min()! * 10000).rounded() / 10000)
            text.key("ratio_max")
            text.number((roundRatios.max()! * 10000).rounded() / 10000)
        }
        if let perCallTokensPerSecond {
            text.key("per_call_tokens_per_sec")
            text.number((perCallTokensPerSecond * 10).rounded() / 10)
            text.key("per_call_ratio")
            text.number(
                ((rawLimitTokensPerSecond > 0 ? perCallTokensPerSecond / rawLimitTokensPerSecond : 0) * 10000).rounded()
                    / 10000)
        }
        if fixedBaseTables > 0 {
            text.key("fixed_base_tables")
            text.integer(fixedBaseTables)
            text.key("fixed_base_table_bytes")
            text.integer(fixedBaseTableBytes)
        }
        text.key("p50_us")
        text.number((p50Microseconds * 100).rounded() / 100)
        text.key("p99_us")
        text.number((p99Microseconds * 100).rounded() / 100)
        if let cacheHits, let cacheMisses {
            text.key("cache_hits")
            text.integer(cacheHits)
            text.key("cache_misses")
            text.integer(cacheMisses)
        }
        text.endObject()
        return text.string
    }
}

/// Measures a corpus: `rounds` rounds, each one raw-limit pass and one full-verification pass on
/// `threads` threads, after one warm-up pass of each; then one pass timing every token for latency
/// percentiles. A round's two passes are cut into slices of ``sliceTokens`` tokens that alternate
/// between the sides, in alternating order (raw first in even slices of even rounds), so drift on
/// a shared machine affects both sides of the round's ratio alike and neither side always runs
/// first.
package enum ThroughputBenchmark {
    /// With `repeat` > 1, each token is presented `repeat` times in round-robin order over the
    /// whole corpus (so hits are not back to back and the cache must hold the corpus), through a
    /// verifier with a verified-token cache of twice the corpus's size; the raw limit is measured
    /// per distinct token, as always. `rawCheck` says what checks the raw limit's signatures.
    package static func measure(
        corpus: BenchmarkCorpus, threads: Int, rounds: Int, repeat presentations: Int = 1,
        rawCheck: RawVerificationLimit.Check = .openSSL
    ) -> ThroughputReport {
        // One verifier shared by every thread, as a service shares one; but each thread gets its
        // own copy of the token bytes and nonces, as each request brings its own. Shared corpus
        // arrays would add a contended reference count per token to both sides of the ratio.
        let verifier =
            presentations > 1
            ? Verifier(
                keys: corpus.keys, policy: corpus.verifier.policy, cache: .init(capacity: 2 * corpus.tokens.count))
            : corpus.verifier
        let copies = (0..<threads).map { _ in corpus.privateCopy() }
        let raws = copies.map { RawVerificationLimit(corpus: $0, check: rawCheck) }
        let rawBox = UncheckedBox(raws)
        let count = corpus.tokens.count
        let rawCount = raws[0].count
        // The batch faces' way: the whole slice as one batch, which the verifier's pipeline cuts.
        let fullPass: @Sendable (Int, Range<Int>) -> Int = { thread, presentations in
            let own = copies[thread]
            var valid = 0
            // Each thread starts at its own offset: concurrent requests carry different tokens,
            // not the same one at the same instant.
            let offset = thread * count / threads
            // Room for exactly these tokens and nonces: App Store tokens run to 19 KB, and a batch
            // that grew as it filled would copy them again.
            var bytes = 0
            for presentation in presentations { bytes += own.byteCount((presentation + offset) % count) }
            var batch = TokenBatch(minimumCapacity: presentations.count, bytes: bytes)
            for presentation in presentations { own.add((presentation + offset) % count, to: &batch) }
            verifier.verify(batch) { _, result in if case .success = result { valid += 1 } }
            return valid
        }
        // One token per call, as a service's request handler verifies.
        let perCallPass: @Sendable (Int, Range<Int>) -> Int = { thread, presentations in
            let own = copies[thread]
            var valid = 0
            let offset = thread * count / threads
            for presentation in presentations where own.accepts(verifier, (presentation + offset) % count) {
                valid += 1
            }
            return valid
        }
        let rawPass: @Sendable (Int, Range<Int>) -> Int = { thread, entries in rawBox.value[thread].run(entries) }

        let batched = verifier.hasP256Keys
        let allPresentations = 0..<(count * presentations)
        // Each round: the whole corpus on both sides, in alternating slices (see the type's doc).
        let slices = max(1, min(rawCount, count) / sliceTokens)
        func slice(_ index: Int, of total: Int) -> Range<Int> {
            (index * total / slices)..<((index + 1) * total / slices)
        }
        // The warm-up, slice by slice as measured: one batch of every presentation could be large.
        for index in 0..<slices { _ = run(threads: threads, slice(index, of: count * presentations), fullPass) }
        _ = run(threads: threads, 0..<rawCount, rawPass)
        if batched { _ = run(threads: threads, allPresentations, perCallPass) }
        var ours: [Double] = []
        var perCall: [Double] = []
        var raw: [Double] = []
        var cpu: [Double] = []
        var valid = 0
        var roundRatios: [Double] = []
        for round in 0..<max(1, rounds) {
            var rawWall = 0.0
            var full = Timing(wall: 0, cpu: 0, result: 0)
            for index in 0..<slices {
                let rawFirst = (round + index) % 2 == 0
                if rawFirst { rawWall += run(threads: threads, slice(index, of: rawCount), rawPass).wall }
                full = full + run(threads: threads, slice(index, of: count * presentations), fullPass)
                if !rawFirst { rawWall += run(threads: threads, slice(index, of: rawCount), rawPass).wall }
            }
            let rawRate = Double(threads * rawCount) / rawWall
            raw.append(rawRate)
            ours.append(Double(threads * count * presentations) / full.wall)
            roundRatios.append(ours[ours.count - 1] / rawRate)
            cpu.append(Double(threads * count * presentations) / full.cpu)
            valid = full.result / threads / presentations
            if batched {
                perCall.append(
                    Double(threads * count * presentations) / run(threads: threads, allPresentations, perCallPass).wall)
            }
        }
        let latencies = latencySamples(corpus: corpus, verifier: verifier, threads: threads).sorted()
        var report = ThroughputReport(
            n: count, valid: valid, threads: threads, tokensPerSecond: median(ours), cpuTokensPerSecond: median(cpu),
            rawLimitTokensPerSecond: median(raw), p50Microseconds: percentile(latencies, 0.50),
            p99Microseconds: percentile(latencies, 0.99))
        report.roundRatios = roundRatios
        report.rawCheck = rawCheck
        if batched {
            report.perCallTokensPerSecond = median(perCall)
            report.fixedBaseTables = corpus.keys.keys.filter { $0.key?.hasFixedBaseTable == true }.count
            report.fixedBaseTableBytes = report.fixedBaseTables * BenchmarkHost.fixedBaseTableBytes
        }
        if let counters = verifier.cache?.counters {
            report.cacheHits = counters.hits
            report.cacheMisses = counters.misses
        }
        return report
    }

    /// Tokens per slice of a round (see ``measure(corpus:threads:rounds:repeat:)``): a few
    /// milliseconds of work, far more than the cost of starting the threads on it.
    package static let sliceTokens = 256

    private struct Timing {
        let wall: Double
        let cpu: Double
        let result: Int

        static func + (a: Timing, b: Timing) -> Timing {
            Timing(wall: a.wall + b.wall, cpu: a.cpu + b.cpu, result: a.result + b.result)
        }
    }

    /// Runs `pass` over `work` once on each of `threads` threads; wall and process CPU seconds,
    /// summed results.
    private static func run(threads: Int, _ work: Range<Int>, _ pass: @escaping @Sendable (Int, Range<Int>) -> Int)
        -> Timing
    {
        let results = UncheckedBox([Int](repeating: 0, count: threads))
        let wall0 = seconds(CLOCK_MONOTONIC)
        let cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID)
        if threads == 1 {
            results.value[0] = pass(0, work)
        } else {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let r = pass(thread, work)
                results.withLock { $0[thread] = r }
            }
        }
        let wall = seconds(CLOCK_MONOTONIC) - wall0
        let cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0
        return Timing(wall: wall, cpu: cpu, result: results.value.reduce(0, +))
    }

    private static func latencySamples(corpus: BenchmarkCorpus, verifier: Verifier, threads: Int) -> [Double] {
        let samples = UncheckedBox([[Double]](repeating: [], count: threads))
        let count = corpus.tokens.count
        let body: @Sendable (Int) -> Void = { thread in
            var local: [Double] = []
            local.reserveCapacity(count)
            for index in 0..<count {
                let t0 = seconds(CLOCK_MONOTONIC)
                _ = corpus.tokens[index].withUnsafeBytes {
                    verifier.evaluate($0, nonce: corpus.nonces[index], at: .clock)
                }
                local.append((seconds(CLOCK_MONOTONIC) - t0) * 1e6)
            }
            samples.withLock { $0[thread] = local }
        }
        if threads == 1 { body(0) } else { DispatchQueue.concurrentPerform(iterations: threads, execute: body) }
        return samples.value.flatMap { $0 }
    }

    static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    private static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// A value shared with benchmark worker threads: each writes only its own slot, under a lock.
final class UncheckedBox<Value>: @unchecked Sendable {
    private let lock = Mutex(())
    var value: Value
    init(_ value: Value) { self.value = value }
    func withLock(_ body: (inout Value) -> Void) { lock.withLock { _ in body(&value) } }
}
