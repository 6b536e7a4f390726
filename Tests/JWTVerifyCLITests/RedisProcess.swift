import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real `redis-server` on a free loopback port, with no persistence (`--save ''`,
/// `--appendonly no`), its files in `directory`; stopped by ``stop()`` or when dropped.
final class RedisProcess {
    let port: Int
    private let process: Process

    /// `redis-server` on `port` (a free one when `nil`), waited for until it accepts connections.
    init(port: Int? = nil, directory: URL) throws {
        let port = port ?? ExternalProgram.freePort()
        self.port = port
        process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalProgram.path("redis-server")!)
        process.arguments = [
            "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--dir", directory.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard ExternalProgram.waitForPort(port) else {
            stop()
            throw ServeFailure.noResponse
        }
    }

    /// Stops the server (SIGKILL: like a crash, nothing kept) and waits for it to exit.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
