import Foundation
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve` as a daemon run by a service manager: readiness and reloads told to systemd
/// (`NOTIFY_SOCKET`), IPv6, `--listen` mistakes as usage errors, a config file whose paths are its
/// own and whose errors name the file, the route and the key, and every metric series from the start.
@Suite("serve as a daemon")
struct ServeDaemonTests {
    /// A Unix datagram socket standing in for systemd's notification socket.
    final class NotifySocket: @unchecked Sendable {
        let path: String
        let fd: Int32
        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString.prefix(8))")
                .path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard fd >= 0, bound == 0 else { throw ServeFailure.noResponse }
        }
        deinit {
            close(fd)
            unlink(path)
        }
        /// The next datagram, waiting up to `seconds`.
        func next(seconds: Int32 = 10) -> String? {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, seconds * 1000) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
        }
    }

    @Test("Type=notify: READY=1 once listening with keys; RELOADING=1 then READY=1 on SIGHUP; STOPPING=1 on SIGTERM")
    func notifiesTheServiceManager() throws {
        let workspace = try TestWorkspace()
        let notify = try NotifySocket()
        // Set for this serve only: another test's serve starting at the same moment must not
        // write to this socket.
        let serve = try ServeProcess(ServeTests.flags(workspace), environment: ["NOTIFY_SOCKET": notify.path])
        let ready = notify.next()
        #expect(ready?.hasPrefix("READY=1") == true, "\(ready ?? "nothing")")
        #expect(try RawHTTP.request(serve.port, path: "/healthz").status == 200)
        serve.signal(SIGHUP)
        let reloading = notify.next()
        #expect(reloading?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true, "\(reloading ?? "nothing")")
        #expect(notify.next() == "READY=1")
        serve.signal(SIGTERM)
        #expect(notify.next() == "STOPPING=1")
        #expect(serve.reap(seconds: 15) == 0)
    }

    @Test(
        "--listen [::1]:0 serves over IPv6; a missing host, a port out of range, an unbracketed IPv6 or a name is a usage error saying which"
    )
    func listenAddresses() throws {
        let workspace = try TestWorkspace()
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = ["serve", "--listen", "[::1]:0"] + ServeTests.flags(workspace)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var text = ""
        while !text.contains("\n") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let port = try #require(
            text.split(separator: "]:").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }, "\(text)")
        #expect(text.contains("listening on http://[::1]:\(port)"))
        // A request over IPv6, by hand.
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = UInt16(port).bigEndian
        inet_pton(AF_INET6, "::1", &address.sin6_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        #expect(connected == 0)
        RawHTTP.send(fd, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        #expect(count > 0 && String(decoding: buffer[..<max(count, 0)], as: UTF8.self).hasPrefix("HTTP/1.1 200"))

        for (value, says) in [
            (":9001", "the host is missing"), ("0.0.0.0:80801", "port 80801 is out of range"),
            ("::1:9001", "an IPv6 address goes in brackets"),
            ("gateway.example:9001", "gateway.example is not an IP address"), ("127.0.0.1", "no port"),
            ("127.0.0.1:http", "the port is not a number"),
        ] {
            let refused = try CLIRunner.run(["serve", "--listen", value] + ServeTests.flags(workspace))
            #expect(refused.status == 64, "\(value)")
            #expect(refused.stderr.contains("--listen \(value): \(says)"), "\(value): \(refused.stderr)")
        }
    }

    @Test(
        "--config: key files relative to the config's folder, from any working directory; each error names the file, the route and the key and says what it takes"
    )
    func configFile() throws {
        let workspace = try TestWorkspace()
        let folder = workspace.file("etc")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try TokenFactory.jwksJSON.write(
            to: folder.appendingPathComponent("partner-keys.json"), atomically: true, encoding: .utf8)
        let config = folder.appendingPathComponent("serve.json")
        func write(_ route: String) throws {
            try #"{"routes": {"partner": \#(route)}}"#.write(to: config, atomically: true, encoding: .utf8)
        }
        try write(
            #"{"jwks": ["partner-keys.json"], "issuer": "\#(TokenFactory.issuer)", "audience": "\#(TokenFactory.audience)", "now": 1700001000}"#
        )
        // Run from the repository root (the harness's working directory), not from the config's folder.
        let serve = try ServeProcess(["--config", config.path])
        #expect(
            try RawHTTP.request(serve.port, path: "/auth/partner", headers: ServeTests.bearer(ServeTests.valid)).status
                == 200)
        let cases: [(String, String)] = [
            (
                #"{"jwks": ["partner-keys.json"], "issuer": "i", "audience": "a", "skip_nonce": "yes"}"#,
                #""skip_nonce" takes true or false, not "yes""#
            ),
            (
                #"{"jwks": ["missing.json"], "issuer": "i", "audience": "a"}"#,
                #""jwks" \#(folder.path)/missing.json: cannot open"#
            ),
            (
                #"{"jwks": ["partner-keys.json"], "isuer": "i", "audience": "a"}"#,
                #"unknown key "isuer"; the keys are "jwks""#
            ),
            (#"{"profile": "firebase"}"#, #""profile" firebase needs "project""#),
            (
                #"{"jwks": ["partner-keys.json"], "issuer": "i", "audience": "a", "cache": "many"}"#,
                #""cache" needs a whole number"#
            ),
            (
                #"{"jwks": ["partner-keys.json"], "issuer": "i", "audience": {"a": 1}}"#,
                #""audience" takes AUD as a string (or a list of them), not {"a":1}"#
            ),
        ]
        for (route, says) in cases {
            try write(route)
            let refused = try CLIRunner.run(["serve", "--config", config.path, "--listen", "127.0.0.1:0"])
            #expect([64, 65, 66].contains(refused.status), "\(route): \(refused.status)")
            #expect(
                refused.stderr.contains(#"--config \#(config.path): route "partner": \#(says)"#),
                "\(route): \(refused.stderr)")
        }
    }

    @Test(
        "every metric family has its series from the start: reloads ok and failed at 0, each route's valid verifications at 0"
    )
    func metricsFromTheStart() throws {
        let workspace = try TestWorkspace()
        let serve = try ServeProcess(ServeTests.flags(workspace))
        let metrics = try RawHTTP.request(serve.port, path: "/metrics").text
        for series in [
            #"jwtverify_reloads_total{outcome="failed"} 0"#, #"jwtverify_reloads_total{outcome="ok"} 0"#,
            #"jwtverify_verifications_total{route="default",result="valid",reason="none"} 0"#,
            #"jwtverify_keys{route="default"} "#,
        ] {
            #expect(metrics.contains(series), "\(series) missing from:\n\(metrics)")
        }
    }
}
