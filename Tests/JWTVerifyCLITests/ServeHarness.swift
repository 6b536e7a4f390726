import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a server wrote to stderr, appended by its reader thread.
private final class StderrText: @unchecked Sendable {
    // Safety: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: String
    init(_ initial: String) { value = initial }
    var text: String { lock.withLock { value } }
    func append(_ more: String) { lock.withLock { value += more } }
}

/// A `jwtverify serve` process on a free loopback port, for one test; killed when released.
final class ServeProcess: @unchecked Sendable {
    // Safety: `reaped` is touched by the test's thread only; the rest is set in init.
    let port: Int
    let pid: Int32
    private let process: Process
    private let output: StderrText
    private var reaped = false

    /// Starts `jwtverify serve --listen 127.0.0.1:0 arguments…` and waits for its "listening" line;
    /// with `shell`, `/bin/sh` runs that command first (`ulimit -f 1`) and then execs serve, so the
    /// process is serve itself.
    /// `environment`: variables set for this process only (never for the test process, whose
    /// other tests start servers of their own at the same moment).
    init(_ arguments: [String], shell: String? = nil, environment: [String: String] = [:]) throws {
        CLIRunner.ignoreBrokenPipes()
        process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let command = ["serve", "--listen", "127.0.0.1:0"] + arguments
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell + #"; exec "$0" "$@""#, CLIRunner.binary.path] + command
        } else {
            process.executableURL = CLIRunner.binary
            process.arguments = command
        }
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        pid = process.processIdentifier
        let handle = errors.fileHandleForReading
        var found: Int? = nil
        var early = ""
        let deadline = Date().addingTimeInterval(20)
        while found == nil && Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            early += String(decoding: chunk, as: UTF8.self)
            if let range = early.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(early[range].split(separator: ":").last ?? "")
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw ServeFailure.didNotStart(early)
        }
        port = found
        // The reader holds the text, not this object, so that dropping a ServeProcess kills the
        // server (deinit) even while the server is still writing.
        let output = StderrText(early)
        self.output = output
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                output.append(String(decoding: chunk, as: UTF8.self))
            }
        }
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            _ = reap(seconds: 2)
        }
    }

    /// What the process wrote to stderr so far.
    var stderr: String { output.text }

    /// Sends `signal` to the process.
    func signal(_ number: Int32) { kill(pid, number) }

    /// Waits up to `seconds` for the process to exit; its exit status, or nil. (Foundation's
    /// `Process` reaps the child itself, so this polls it rather than calling waitpid.)
    func reap(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if !process.isRunning {
                reaped = true
                return process.terminationStatus
            }
            usleep(10_000)
        }
        return nil
    }

    /// The process's resident set, in KiB (from /proc).
    var residentKiB: Int { statusField("VmRSS:") }

    /// The process's peak resident set so far, in KiB (the kernel's high-water mark, from /proc).
    var peakResidentKiB: Int { statusField("VmHWM:") }

    private func statusField(_ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// Waits until stderr contains `text` (up to `seconds`).
    func waitForStderr(_ text: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }
}

enum ServeFailure: Error {
    case didNotStart(String)
    case noResponse
}

/// HTTP/1.1 over a plain socket: exact bytes out, the response parsed back.
enum RawHTTP {
    struct Response {
        let status: Int
        let headers: [(String, String)]
        let body: Data

        /// The first header named `name`, case-insensitively.
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// A connected socket to 127.0.0.1:`port`, or -1.
    static func connect(_ port: Int, timeoutSeconds: Int = 10) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 {
            close(fd)
            return -1
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// One request on a fresh connection (`Connection: close`), its response read to the end.
    static func request(
        _ port: Int, method: String = "GET", path: String, headers: [(String, String)] = [], body: [UInt8] = [],
        timeoutSeconds: Int = 10
    ) throws -> Response {
        let fd = connect(port, timeoutSeconds: timeoutSeconds)
        guard fd >= 0 else { throw ServeFailure.noResponse }
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        send(fd, Array(head.utf8) + body)
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data.append(contentsOf: chunk[..<n])
        }
        return try parse(data, headOnly: method == "HEAD")
    }

    static func parse(_ data: Data, headOnly: Bool = false) throws -> Response {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { throw ServeFailure.noResponse }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else {
            throw ServeFailure.noResponse
        }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (
                String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            )
        }
        return Response(status: status, headers: headers, body: headOnly ? Data() : Data(data[end.upperBound...]))
    }
}

/// A Debian program the tests need (nginx, caddy, promtool); `make test` installs them.
enum ExternalProgram {
    static func path(_ name: String) -> String? {
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `path arguments…` to its end (stdin from `input`, when given); its exit status and
    /// what it wrote to stdout and stderr together.
    static func run(_ path: String, _ arguments: [String], input: URL? = nil) throws -> (status: Int32, output: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }

    static func missing(_ name: String) -> Comment {
        Comment(rawValue: "\(name) is not installed: 'make test' installs it (apt-get); skipped")
    }

    /// A free loopback port (bound, read and released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits until 127.0.0.1:`port` accepts connections.
    static func waitForPort(_ port: Int, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let fd = RawHTTP.connect(port)
            if fd >= 0 {
                close(fd)
                return true
            }
            usleep(50_000)
        }
        return false
    }
}
