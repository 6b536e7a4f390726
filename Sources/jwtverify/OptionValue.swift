import JWTVerify
import JWTVerifyTooling

/// Parsers for option values the commands share, with one wording for their usage errors.
enum OptionValue {
    /// A finite number of seconds ≥ 0 (`--leeway`).
    static func seconds(_ name: String, _ text: String) throws(CommandFailure) -> Double {
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw .usage("\(name) needs a number of seconds >= 0, not \"\(text)\"")
        }
        return value
    }

    /// A number of seconds within `range` (`--refresh-wait`, `--request-timeout`).
    static func seconds(_ name: String, _ text: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double
    {
        let value = try seconds(name, text)
        guard range.contains(value) else {
            throw .usage(
                "\(name) takes \(range.lowerBound.formatted) to \(range.upperBound.formatted) seconds, not \(text)")
        }
        return value
    }

    /// Unix seconds (fractions allowed) or RFC 3339 (`--now`).
    static func time(_ name: String, _ text: String) throws(CommandFailure) -> Double {
        guard let value = Timestamp.parse(text) else {
            throw .usage("\(name) needs Unix seconds or an RFC 3339 time, not \"\(text)\"")
        }
        return value
    }

    /// A comma-separated algorithm list (`--algorithms`); never empty.
    static func algorithms(_ name: String, _ text: String) throws(CommandFailure) -> Set<SignatureAlgorithm> {
        var algorithms: Set<SignatureAlgorithm> = []
        for item in text.split(separator: ",", omittingEmptySubsequences: true) {
            let algorithmName = item.trimmingSpaces
            guard let algorithm = SignatureAlgorithm(name: algorithmName) else {
                throw .usage("\(name): unknown or unsupported algorithm \"\(algorithmName)\"")
            }
            algorithms.insert(algorithm)
        }
        guard !algorithms.isEmpty else { throw .usage("\(name) needs at least one algorithm") }
        return algorithms
    }

    /// A whole number in `range` (`--threads`, `--max-token-bytes`, ...).
    static func count(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(CommandFailure) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw .usage(
                "\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }
}

extension Double {
    /// The number as a usage message writes it: `10`, not `10.0`.
    fileprivate var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
