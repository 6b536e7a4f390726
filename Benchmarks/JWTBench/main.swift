import Foundation
import JWTVerify
import JWTVerifyTooling
#if canImport(Glibc)
import Glibc
#endif

// Throughput of full verification against the raw OpenSSL limit (see Benchmarks/README.md).
// Usage: swift run -c release jwtbench [FILTER] [--threads N] [--rounds N] [--tokens N] [--json]
//        [--raw-check openssl|library]   what checks the raw limit's signatures (RawVerificationLimit.Check)

var isDebugBuild = false
assert({ isDebugBuild = true; return true }())
if isDebugBuild {
    print("jwtbench: this is a debug build; its numbers mean nothing. Run: swift run -c release jwtbench")
    exit(2)
}

var filter: String? = nil
var maxThreads = BenchmarkHost.processorCount
var rounds = 7
var tokenCount = 2000
var json = false
var corpusDirectory: String? = nil
var corpusRepeat = 1
var rawCheck = RawVerificationLimit.Check.openSSL
var arguments = CommandLine.arguments.dropFirst()
while let word = arguments.popFirst() {
    switch word {
    case "--threads": maxThreads = Int(arguments.popFirst() ?? "") ?? maxThreads
    case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
    case "--tokens": tokenCount = Int(arguments.popFirst() ?? "") ?? tokenCount
    case "--json": json = true
    case "--write-corpus": corpusDirectory = arguments.popFirst()
    case "--repeat": corpusRepeat = Int(arguments.popFirst() ?? "") ?? 1
    case "--raw-check":
        let value = arguments.popFirst() ?? ""
        guard let check = RawVerificationLimit.Check(rawValue: value) else {
            FileHandle.standardError.write(Data("jwtbench: --raw-check takes openssl or library, not '\(value)'\n".utf8))
            exit(64)  // EX_USAGE
        }
        rawCheck = check
    default: filter = word
    }
}

// --write-corpus DIR: write jwks.json, tokens.txt and nonces.txt (each token repeated --repeat
// times) for CLI runs, instead of measuring.
if let corpusDirectory {
    let algorithm = SignatureAlgorithm(name: (filter ?? "RS256").uppercased()) ?? .rs256
    do {
        let corpus = try BenchmarkCorpus.appleShaped(count: tokenCount, algorithm: algorithm)
        try corpus.write(to: corpusDirectory, repeating: corpusRepeat)
    } catch {
        FileHandle.standardError.write(Data("jwtbench: \(error) (does \(corpusDirectory) exist?)\n".utf8))
        exit(73)  // EX_CANTCREAT
    }
    print("wrote \(tokenCount * corpusRepeat) \(algorithm) tokens to \(corpusDirectory)")
    exit(0)
}

let algorithms: [SignatureAlgorithm] = [.rs256, .es256, .ps256, .rs512, .es384, .es512, .edDSA]
if !json { print(BenchmarkHost.description) }
for algorithm in algorithms where filter == nil || algorithm.name.lowercased().contains(filter!.lowercased()) {
    let corpus = try BenchmarkCorpus.appleShaped(count: algorithm == .rs256 || algorithm == .es256 ? tokenCount : tokenCount / 4, algorithm: algorithm)
    for threads in Array(Set([1, maxThreads])).sorted() {
        let report = ThroughputBenchmark.measure(corpus: corpus, threads: threads, rounds: rounds, rawCheck: rawCheck)
        if json {
            print(report.json(label: algorithm.name))
        } else {
            print(BenchmarkHost.row(algorithm.name, report))
            if let note = BenchmarkHost.fixedBaseNote(report) { print(note) }
            if let note = BenchmarkHost.rawCheckNote(report) { print(note) }
        }
    }
}
