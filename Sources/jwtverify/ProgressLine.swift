#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-line progress report on stderr (tokens done, rate, share done and ETA when the input's size
/// is known), redrawn at most twice a second. Silent unless stderr is a terminal.
final class ProgressLine {
    private let enabled: Bool
    private let totalBytes: Int?
    private let start: Double
    private var lastDraw: Double
    private var drawn = false
    /// Seconds between redraws: 0.5, or `JWTVERIFY_PROGRESS_INTERVAL` (tests set 0).
    private let interval: Double = getenv("JWTVERIFY_PROGRESS_INTERVAL").flatMap { Double(String(cString: $0)) } ?? 0.5

    /// `totalBytes`: the summed size of the inputs, when all are regular files.
    init(enabled: Bool = StandardError.isTerminal, totalBytes: Int?) {
        self.enabled = enabled
        self.totalBytes = totalBytes
        start = Self.now()
        lastDraw = start
    }

    /// Reports `tokens` done after reading `bytes` of input.
    func update(tokens: Int, bytes: Int) {
        guard enabled else { return }
        let now = Self.now()
        guard now - lastDraw >= interval else { return }
        lastDraw = now
        let elapsed = now - start
        let rate = elapsed > 0 ? Double(tokens) / elapsed : 0
        var text = "\rjwtverify: \(Self.grouped(tokens)) tokens, \(Self.grouped(Int(rate)))/s"
        if let totalBytes, totalBytes > 0, bytes > 0 {
            let share = min(1, Double(bytes) / Double(totalBytes))
            let remaining = share > 0 ? elapsed * (1 - share) / share : 0
            text += ", \(Int(share * 100))%, ETA \(Self.duration(remaining))"
        }
        StandardError.write(text + "\u{1B}[K")
        drawn = true
    }

    /// Erases the line before the summary is written.
    func finish() {
        if drawn { StandardError.write("\r\u{1B}[K") }
    }

    /// The summed size of regular files at `paths`, or `nil` if any input is not one (stdin, a pipe).
    static func totalSize(of inputs: [InputFile]) -> Int? {
        var total = 0
        for input in inputs {
            var info = stat()
            guard fstat(input.fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            total += Int(info.st_size)
        }
        return total
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    private static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        let tail = s % 60 < 10 ? "0\(s % 60)" : "\(s % 60)"
        return s >= 3600 ? "\(s / 3600):\(s % 3600 / 60 < 10 ? "0" : "")\(s % 3600 / 60):\(tail)" : "\(s / 60):\(tail)"
    }
}
