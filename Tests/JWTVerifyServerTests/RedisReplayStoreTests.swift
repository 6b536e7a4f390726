import Foundation
import JWTVerify
import JWTVerifyServer
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// ``RedisReplayStore`` against a real `redis-server` on a free loopback port: `SET NX PX` once,
/// its expiry, the outage and the reconnection, with the state `/metrics` reads.
@Suite(
    "Redis replay store",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server"),
        "redis-server is not installed: 'make gateway-deps' installs it"))
struct RedisReplayStoreTests {
    /// `redis-server` on `port` without persistence, until `stop()`; and `redis-cli`'s answer.
    final class Redis {
        let port: Int
        let process = Process()

        init(port: Int) throws {
            self.port = port
            process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
            process.arguments = [
                "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                NSTemporaryDirectory(),
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var tries = 0
            while cli(["PING"]) != "PONG" && tries < 200 {
                usleep(25_000)
                tries += 1
            }
        }

        func cli(_ words: [String]) -> String {
            let cli = Process()
            cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
            cli.arguments = ["-p", "\(port)"] + words
            let output = Pipe()
            cli.standardOutput = output
            cli.standardError = FileHandle.nullDevice
            guard (try? cli.run()) != nil else { return "" }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            cli.waitUntilExit()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    /// A loopback port nothing listens on now.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 ? getsockname(fd, pointer, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("once: recorded, then seen; the key expires with its window; binary keys kept exact")
    func once() throws {
        let redis = try Redis(port: Self.freePort())
        let store = RedisReplayStore(address: RedisAddress(host: "127.0.0.1", port: redis.port))
        #expect(store.check() == nil)
        let key = Array("jwtverify:test:a".utf8)
        #expect(store.recordOnce(key, milliseconds: 60_000) == .recorded)
        #expect(store.recordOnce(key, milliseconds: 60_000) == .seen)
        let ttl = Int(redis.cli(["PTTL", "jwtverify:test:a"])) ?? -1
        #expect(ttl > 50_000 && ttl <= 60_000, "PTTL \(ttl)")
        #expect(redis.cli(["GET", "jwtverify:test:a"]) == "1")
        // A short window: gone after it, and then new again.
        let short = Array("jwtverify:test:short".utf8)
        #expect(store.recordOnce(short, milliseconds: 30) == .recorded)
        usleep(120_000)
        #expect(store.recordOnce(short, milliseconds: 30) == .recorded)
        // Bytes a text protocol would split on are one argument (the shim sends lengths).
        let odd = Array("k \r\n*1\r\n".utf8) + [0, 255]
        #expect(store.recordOnce(odd, milliseconds: 60_000) == .recorded)
        #expect(store.recordOnce(odd, milliseconds: 60_000) == .seen)
        #expect(store.isUp && store.failures == 0)
        redis.stop()
    }

    @Test("down: unavailable with the reason, counted; back on the same port: recorded again, no restart")
    func outage() throws {
        let port = Self.freePort()
        var redis = try Redis(port: port)
        let store = RedisReplayStore(address: RedisAddress(host: "127.0.0.1", port: port), timeout: 0.5)
        #expect(store.recordOnce(Array("a".utf8), milliseconds: 1000) == .recorded)
        redis.stop()
        // The pooled connection fails first, then connecting does.
        for _ in 0..<2 {
            guard case .unavailable(let why) = store.recordOnce(Array("b".utf8), milliseconds: 1000) else {
                Issue.record("recorded while Redis is down")
                continue
            }
            #expect(why.hasPrefix("redis at 127.0.0.1:\(port)"), "\(why)")
        }
        #expect(!store.isUp && store.failures == 2)
        redis = try Redis(port: port)
        #expect(store.recordOnce(Array("b".utf8), milliseconds: 1000) == .recorded)
        #expect(store.isUp && store.failures == 2)
        redis.stop()
    }
}
