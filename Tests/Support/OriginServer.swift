import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `jwks_origin.py` on 127.0.0.1 for the duration of a test, and scripts it.
package final class OriginServer: @unchecked Sendable {
    // Safety: immutable after init; the process is only terminated in deinit.
    package let port: Int
    private let process: Process

    package init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("jwks_origin.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
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
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw OriginError.didNotStart
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

    package enum OriginError: Error { case didNotStart, requestFailed }

    package var keysURL: String { "http://127.0.0.1:\(port)/keys" }
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Sets the origin's behaviour.
    package func set(_ settings: [String: Any]) throws {
        var request = URLRequest(url: URL(string: url("/control"))!)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: settings)
        _ = try Self.send(request)
    }

    /// The origin's request counters.
    package func stats() throws -> (requests: Int, conditional: Int, notModified: Int, ifModifiedSince: Int) {
        let data = try Self.send(URLRequest(url: URL(string: url("/stats"))!))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Int] ?? [:]
        return (object["requests"] ?? -1, object["conditional"] ?? -1, object["not_modified"] ?? -1, object["if_modified_since"] ?? -1)
    }

    private static func send(_ request: URLRequest) throws -> Data {
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox()
        URLSession.shared.dataTask(with: request) { data, _, error in
            box.data = error == nil ? data : nil
            semaphore.signal()
        }.resume()
        semaphore.wait()
        guard let data = box.data else { throw OriginError.requestFailed }
        return data
    }
}

private final class ResultBox: @unchecked Sendable {
    var data: Data?
}
