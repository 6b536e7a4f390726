import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Python script of this folder serving HTTP on 127.0.0.1 for the duration of a test: started
/// with its arguments, its port read from its first line, killed when released.
package final class LoopbackScript: @unchecked Sendable {
    // Safety: immutable after init; the process is only terminated in deinit.
    package let port: Int
    private let process: Process

    package enum ScriptError: Error { case didNotStart, requestFailed }

    /// Starts `python3 <this folder>/name arguments…` and waits for the port it prints.
    package init(_ name: String, _ arguments: [String] = []) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw ScriptError.didNotStart
        }
        self.port = port
    }

    deinit {
        // Not waitUntilExit(): on Linux it can block forever when called from another thread than
        // the one that launched the process (async tests hop threads). Reap with a bounded poll.
        let pid = process.processIdentifier
        kill(pid, SIGKILL)
        var status: Int32 = 0
        for _ in 0..<100 where waitpid(pid, &status, WNOHANG) == 0 { usleep(20_000) }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// GETs `path`, or POSTs `json` (a JSON object) to it; the body of the answer.
    package func send(_ path: String, json: Any? = nil) throws -> [UInt8] {
        var request = URLRequest(url: URL(string: url(path))!)
        if let json {
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, _, error in
            box.data = error == nil ? data : nil
            semaphore.signal()
        }.resume()
        semaphore.wait()
        guard let data = box.data else { throw ScriptError.requestFailed }
        return Array(data)
    }
}

private final class ResultBox: @unchecked Sendable {
    var data: Data?
}
