import JWTVerify
#if canImport(Glibc)
import Glibc
#endif

// Throughput of full verification against the raw OpenSSL limit (see Benchmarks/README.md).
// Usage: swift run -c release jwtbench [FILTER] [--threads N] [--rounds N] [--tokens N] [--json]

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
var arguments = CommandLine.arguments.dropFirst()
while let word = arguments.popFirst() {
    switch word {
    case "--threads": maxThreads = Int(arguments.popFirst() ?? "") ?? maxThreads
    case "--rounds": rounds = Int(arguments.popFirst() ?? "") ?? rounds
    case "--tokens": tokenCount = Int(arguments.popFirst() ?? "") ?? tokenCount
    case "--json": json = true
    default: filter = word
    }
}

let algorithms: [SignatureAlgorithm] = [.rs256, .es256, .ps256, .rs512, .es384, .es512, .edDSA]
if !json { print(BenchmarkHost.description) }
for algorithm in algorithms where filter == nil || algorithm.name.lowercased().contains(filter!.lowercased()) {
    let corpus = try BenchmarkCorpus.appleShaped(count: algorithm == .rs256 || algorithm == .es256 ? tokenCount : tokenCount / 4, algorithm: algorithm)
    for threads in Array(Set([1, maxThreads])).sorted() {
        let report = ThroughputBenchmark.measure(corpus: corpus, threads: threads, rounds: rounds)
        if json {
            print(report.json(label: algorithm.name))
        } else {
            print(BenchmarkHost.row(algorithm.name, report))
        }
    }
}
