package import Foundation

/// A Python script of `Tests/` that reads one JSON object per line on stdin and answers each with
/// one JSON object per line on stdout: the independent implementations the differential tests
/// ask (joserfc, Python `cryptography`).
package struct JSONLinesScript: Sendable {
    /// The script.
    package let url: URL

    /// The script at `path` under `Tests/`.
    package init(_ path: String) {
        url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(path)
    }

    /// Runs the script with `python3` on `cases`: its exit status and its answers, in order.
    package func run(_ cases: [[String: Any]]) throws -> (status: Int32, answers: [[String: Any]]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", url.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = Data()
        for item in cases { text += try JSONSerialization.data(withJSONObject: item) + Data("\n".utf8) }
        try input.fileHandleForWriting.write(contentsOf: text)
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let answers = try answer.split(separator: UInt8(ascii: "\n")).map {
            try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] ?? [:]
        }
        return (process.terminationStatus, answers)
    }
}
