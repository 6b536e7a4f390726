import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `jwtverify` binary and captures its stdout, stderr and exit status.
enum CLIRunner {
    struct Outcome {
        let status: Int32
        let stdout: Data
        let stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        /// Each stdout line parsed as a JSON object.
        var records: [[String: Any]] {
            stdout.split(separator: UInt8(ascii: "\n")).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
            }
        }
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The binary beside the test bundle (SwiftPM builds it because the test target depends on it).
    static let binary: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("jwtverify")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/jwtverify")
    }()

    /// Runs `jwtverify arguments…` with `input` on stdin (written from another thread, so large
    /// inputs cannot deadlock against a full stdout pipe).
    /// `environment`: variables set (or, with `nil`, removed) for this run only.
    static func run(
        _ arguments: [String], input: Data = Data(), currentDirectory: URL = repositoryRoot,
        environment: [String: String?] = [:],
        executable: URL = binary
    ) throws -> Outcome {
        ignoreBrokenPipes()
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = currentDirectory
        if !environment.isEmpty {
            var variables = ProcessInfo.processInfo.environment
            for (name, value) in environment { variables[name] = value }
            process.environment = variables
        }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let group = DispatchGroup()
        let inputHandle = stdin.fileHandleForWriting
        DispatchQueue.global().async(group: group) {
            try? inputHandle.write(contentsOf: input)
            try? inputHandle.close()
        }
        let errorBox = DataBox()
        let errorHandle = stderr.fileHandleForReading
        DispatchQueue.global().async(group: group) { errorBox.data = errorHandle.readDataToEndOfFile() }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        group.wait()
        let errorData = errorBox.data
        return Outcome(
            status: process.terminationStatus, stdout: out, stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// A write to a pipe or socket whose reader is gone (a command that exits before reading its
    /// input, a server closing an idle connection) must fail the write, not kill the test process.
    static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Runs another program (a shell around jwtverify, man) as ``run(_:input:currentDirectory:environment:executable:)`` does.
    static func runProgram(_ path: String, _ arguments: [String]) throws -> Outcome {
        try run(arguments, executable: URL(fileURLWithPath: path))
    }

    /// Runs `jwtverify arguments…` under a Python parent that reports the child's peak resident set
    /// (`getrusage(RUSAGE_CHILDREN)`, the kernel's high-water mark, so no sampling can miss a peak).
    static func runMeasured(_ arguments: [String], input: Data = Data()) throws -> (outcome: Outcome, peakKiB: Int) {
        let parent = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:]).returncode
            print("peak-rss-kib", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
            sys.exit(status)
            """
        let outcome = try run(
            ["-c", parent, binary.path] + arguments, input: input, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let lines = outcome.stderr.split(separator: "\n")
        let peak = lines.last.flatMap { $0.hasPrefix("peak-rss-kib ") ? Int($0.dropFirst(13)) : nil } ?? -1
        let stderr = lines.filter { !$0.hasPrefix("peak-rss-kib ") }.joined(separator: "\n")
        return (Outcome(status: outcome.status, stdout: outcome.stdout, stderr: stderr), peak)
    }

    /// Runs `jwtverify arguments…` with its stdout opened on `stdout` (a path, such as
    /// `/dev/full`); the outcome's stdout is empty.
    static func runToFile(_ arguments: [String], input: Data = Data(), stdout path: String) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        let stdin = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle(forWritingAtPath: path)!
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: input)
        try stdin.fileHandleForWriting.close()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: Data(), stderr: String(decoding: errors, as: UTF8.self))
    }
}

/// Hands data from a reader thread to the test (read only after the group finished).
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
