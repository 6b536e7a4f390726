import CMallocTuning
import JWTVerify
import JWTVerifyKeyMaking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a benchmark ran on, and how its rows are printed for people.
package enum BenchmarkHost {
    /// The CPU model from /proc/cpuinfo, when readable.
    package static var cpuModel: String {
        guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown CPU" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
                return String(text[text.index(after: colon)...].drop(while: { $0 == " " }).dropLast())
            }
        }
        return "unknown CPU"
    }

    /// One header line: date, CPU, cores, OpenSSL.
    package static var description: String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let date = "\(1900 + Int(parts.tm_year))-\(pad(Int(parts.tm_mon) + 1))-\(pad(Int(parts.tm_mday)))"
        let engine =
            MultiBufferEngine.isLoaded
            ? MultiBufferEngine.description : "OpenSSL (crypto_mb: \(MultiBufferEngine.description))"
        return
            "\(date) · \(cpuModel) · \(Processors.online) cores · \(OpenSSLVersion.text) · signature engine: \(engine)\n"
            + "alg      threads    tokens/s   raw limit/s   ratio    round ratios   cpu tokens/s   p50 µs   p99 µs   valid/n"
    }

    /// One table row.
    package static func row(_ label: String, _ report: ThroughputReport) -> String {
        func column(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        func fixed(_ value: Double, _ digits: Int) -> String {
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            let rounded = (value * scale).rounded() / scale
            var text = "\(rounded)"
            if let dot = text.firstIndex(of: ".") {
                let decimals = text.distance(from: dot, to: text.endIndex) - 1
                if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
                if digits == 0 { text = String(text[..<dot]) }
            }
            return text
        }
        return label.padding(8) + column("\(report.threads)", 8) + column(fixed(report.tokensPerSecond, 0), 12)
            + column(fixed(report.rawLimitTokensPerSecond, 0), 14) + column(fixed(report.ratio, 3), 8)
            + column(
                report.roundRatios.isEmpty
                    ? "-" : fixed(report.roundRatios.min()!, 3) + "–" + fixed(report.roundRatios.max()!, 3), 16)
            + column(fixed(report.cpuTokensPerSecond, 0), 15) + column(fixed(report.p50Microseconds, 1), 9)
            + column(fixed(report.p99Microseconds, 1), 9) + column("\(report.valid)/\(report.n)", 10)
    }

    /// What each column means, printed under the table.
    package static let legend = """
        tokens/s: full verification, all threads (median of the rounds); raw limit/s: the digest and the
        raw check (--raw-check) alone on the same tokens and keys in the same run; ratio: tokens/s over
        raw limit/s, the median of each round's own ratio (round ratios: their range); cpu tokens/s:
        tokens per CPU-second; p50/p99 µs: one token's latency on one thread; valid/n: tokens verified
        of those measured.
        """

    /// With ``RawVerificationLimit/Check/library``: what the raw limit timed instead of `EVP_PKEY_verify`.
    package static func rawCheckNote(_ report: ThroughputReport) -> String? {
        switch report.rawCheck {
        case .openSSL: nil
        case .library:
            "raw limit: the library's own signature check (RS256/RS384/RS512 through the key's Montgomery chain), not EVP_PKEY_verify"
        case .multiBuffer:
            "raw limit: the multi-buffer engine alone (RS256/RS384/RS512 eight to a call through crypto_mb), not EVP_PKEY_verify"
        }
    }

    /// For a corpus with P-256 keys: the per-call rate beside the batched one, and the tables'
    /// memory. The raw limit stays OpenSSL's own `EVP_PKEY_verify`, so ES256 ratios go above 1.
    package static func fixedBaseNote(_ report: ThroughputReport) -> String? {
        guard let perCall = report.perCallTokensPerSecond else { return nil }
        let ratio = report.rawLimitTokensPerSecond > 0 ? perCall / report.rawLimitTokensPerSecond : 0
        return
            "  ES256 above is batched (128 signatures share one inversion, as verify/audit/serve do); one token per call: "
            + "\(Int(perCall.rounded())) tokens/s, ratio \((ratio * 1000).rounded() / 1000). "
            + (report.fixedBaseTables > 0
                ? "Fixed-base tables: \(report.fixedBaseTables) × \(fixedBaseTableBytes / 1024) KiB. " : "")
            + "The raw limit is OpenSSL's own EVP_PKEY_verify."
    }

    /// The heap one fixed-base P-256 table holds, measured once by building one for a fresh key
    /// (glibc's allocator statistics before and after; 0 where they are unavailable).
    package static let fixedBaseTableBytes: Int = {
        guard let key = try? EVPPrivateKey.generateEC(curve: "P-256"),
            let members = Optional(Dictionary(uniqueKeysWithValues: key.publicJWKMembers())),
            let x = members["x"].flatMap({ Base64URL.decode($0.utf8) }),
            let y = members["y"].flatMap({ Base64URL.decode($0.utf8) })
        else { return 0 }
        let point = [0x04] + x + y
        let before = cmalloc_heap_in_use()
        let table = FixedBaseP256Key(uncompressedPoint: point)
        let after = cmalloc_heap_in_use()
        return withExtendedLifetime(table) { table == nil ? 0 : Int(after) - Int(before) }
    }()

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
