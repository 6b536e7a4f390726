import Foundation
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Slow clients cannot hold the door: a request head must be in within `--request-timeout`, and a
/// body declared over the cap is refused before it is read. Through the built binary, with
/// clients that send one byte a second.
@Suite("serve: slow clients", .serialized)
struct ServeSlowClientTests {
    static func serve(_ extra: [String]) throws -> ServeProcess {
        try ServeProcess(
            [
                "--jwks", CLIRunner.repositoryRoot.appendingPathComponent("Vectors/jwks.json").path, "--issuer",
                "https://appleid.apple.com",
                "--audience", "com.example.app", "--threads", "1",
            ] + extra)
    }

    /// Sends `head` one byte at a time, `interval` seconds apart, until the server closes the
    /// connection or `budget` seconds pass; the seconds until the close (nil: never closed).
    static func drip(_ fd: Int32, _ head: [UInt8], interval: Double, budget: Double) -> Double? {
        let start = Date()
        var index = 0
        while Date().timeIntervalSince(start) < budget {
            var probe: UInt8 = 0
            let peeked = recv(fd, &probe, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
            if peeked == 0 { return Date().timeIntervalSince(start) }  // closed by the server
            let sent = head[index % head.count..<index % head.count + 1].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return Date().timeIntervalSince(start) }
            index += 1
            usleep(useconds_t(interval * 1_000_000))
        }
        return nil
    }

    @Test(
        "a client dripping its request line a byte a second is closed at --request-timeout, though --timeout never fires"
    )
    func dripClosed() throws {
        let serve = try Self.serve(["--request-timeout", "2", "--timeout", "60"])
        let fd = RawHTTP.connect(serve.port)
        #expect(fd >= 0)
        defer { close(fd) }
        let closedAfter = Self.drip(
            fd, Array("GET /healthz HTTP/1.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200),
            interval: 0.5, budget: 8)
        #expect(closedAfter != nil, "the dripping connection was still open after 8 s")
        #expect((closedAfter ?? 99) >= 1.5 && (closedAfter ?? 99) < 6, "closed after \(closedAfter ?? -1) s")
    }

    @Test(
        "sixteen dripping connections with --max-connections 16 keep another client out for at most the request time-out"
    )
    func sixteenDrippers() throws {
        let serve = try Self.serve(["--request-timeout", "2", "--timeout", "60", "--max-connections", "16"])
        let drippers = (0..<16).map { _ in RawHTTP.connect(serve.port) }
        defer { for fd in drippers { close(fd) } }
        #expect(drippers.allSatisfy { $0 >= 0 })
        let group = DispatchGroup()
        for fd in drippers {
            DispatchQueue.global().async(group: group) {
                _ = Self.drip(fd, Array("GET /healthz HTTP/1.1\r\nX: ".utf8), interval: 1, budget: 8)
            }
        }
        usleep(300_000)
        let start = Date()
        var served: Double?
        while served == nil, Date().timeIntervalSince(start) < 8 {
            if let answer = try? RawHTTP.request(serve.port, path: "/healthz", timeoutSeconds: 1), answer.status == 200
            {
                served = Date().timeIntervalSince(start)
            } else {
                usleep(100_000)
            }
        }
        group.wait()
        #expect(served != nil, "another client was kept out for 8 s")
        #expect((served ?? 99) < 6, "another client waited \(served ?? -1) s with --request-timeout 2")
    }

    @Test("--request-timeout and --refresh-wait outside their ranges are usage errors (64) that name the range")
    func optionRanges() throws {
        let keys = ["serve", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a"]
        for (option, value, message) in [
            ("--request-timeout", "0.1", "--request-timeout takes 0.5 to 3600 seconds, not 0.1"),
            ("--refresh-wait", "11", "--refresh-wait takes 0 to 10 seconds, not 11"),
            ("--refresh-wait", "-1", "--refresh-wait needs a number of seconds >= 0, not \"-1\""),
        ] {
            let outcome = try CLIRunner.run(keys + [option, value])
            #expect(outcome.status == 64 && outcome.stderr.contains(message), "\(outcome.stderr)")
        }
    }

    @Test("a body whose Content-Length is over --max-body-bytes gets 413 before any of it is sent")
    func declaredTooLarge() throws {
        let serve = try Self.serve(["--max-body-bytes", "1000"])
        let fd = RawHTTP.connect(serve.port, timeoutSeconds: 5)
        #expect(fd >= 0)
        defer { close(fd) }
        RawHTTP.send(fd, Array("POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50000000\r\n\r\n".utf8))
        // Not one body byte sent: the answer must come anyway.
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !data.contains(Data("\r\n\r\n".utf8)) {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data.append(contentsOf: chunk[..<n])
        }
        let answer = try RawHTTP.parse(data, headOnly: true)
        #expect(answer.status == 413)
        #expect(answer.header("Connection")?.lowercased() == "close")
        #expect(answer.header("Cache-Control") == "no-store")
    }
}
