import Dispatch
import JWTVerify
import JWTVerifyServer
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#endif

/// `jwtverify serve`: the verifier behind an HTTP port, for gateways and backends in any language.
struct ServeCommand {
    let options: ServeOptions

    func run() throws(CommandFailure) -> ExitStatus {
        // A write past a file-size limit (ulimit -f) fails (EFBIG) rather than killing serve: a
        // notification whose ID cannot be recorded is then answered 503.
        signal(SIGXFSZ, SIG_IGN)
        let commandLine = options.route.isGiven ? options.route : nil
        let store = replayStore
        let routes = try ServeRoutes.load(
            commandLine: commandLine, configFile: options.configFile, requireKeys: false, replayStore: store)
        let write: @Sendable (String) -> Void = { line in StandardError.write(line) }
        let log = options.accessLog ? write : nil
        let service: ServeService
        if let directory = options.stateDirectory {
            try Folder.prepare(directory, mode: 0o700, option: "--state-dir")
            do throws(NotificationWindowFileError) {
                service = try ServeService(
                    routes: routes, accessLog: log, stateDirectory: directory, replayStore: store)
            } catch {
                throw Self.failure(error)
            }
        } else {
            service = ServeService(routes: routes, accessLog: log, replayStore: store)
        }
        let limits = MicroHTTPDServer.Limits(
            threads: options.threads, connections: options.maxConnections, timeoutSeconds: options.timeoutSeconds,
            headerBytes: options.maxHeaderBytes, bodyBytes: options.maxBodyBytes,
            requestTimeoutSeconds: options.requestTimeoutSeconds)
        // Signals are taken by dispatch sources, not by handlers running on a server thread.
        for number in [SIGHUP, SIGTERM, SIGINT] { signal(number, SIG_IGN) }
        let server: MicroHTTPDServer
        do throws(MicroHTTPDServer.ListenFailure) {
            server = try MicroHTTPDServer(host: options.host, port: options.port, limits: limits, service: service)
        } catch {
            throw CommandFailure(
                status: .osError,
                message:
                    "cannot listen on \(ListenAddress.display(host: options.host, port: Int(options.port))): \(error.description)"
            )
        }
        for route in routes.routes.values.sorted(by: { $0.name < $1.name })
        where route.requiresNonce && route.configuration.nonce == nil {
            StandardError.write(
                "jwtverify serve: warning: route \"\(route.name)\" requires a raw nonce, which an /auth request does not carry: "
                    + "its /auth answers are nonce_missing (give --skip-nonce if this service uses no nonces)\n")
        }
        StandardError.write(
            "jwtverify serve: listening on http://\(ListenAddress.display(host: options.host, port: Int(server.port))) (\(routes.routes.count) route\(routes.routes.count == 1 ? "" : "s"): "
                + routes.routes.keys.sorted().joined(separator: ", ") + ")\n")

        // A service manager (systemd, Type=notify) hears READY=1 once every route has keys.
        let notifier = ServiceManagerNotifier()
        let control = DispatchQueue(label: "jwtverify.serve.control")
        if notifier.isActive { Self.notifyWhenReady(service, notifier, on: control) }
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceProtocol] = []
        let hangUp = DispatchSource.makeSignalSource(signal: SIGHUP, queue: control)
        hangUp.setEventHandler {
            notifier.send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
            reload(service)
            notifier.send("READY=1")
        }
        for number in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: control)
            source.setEventHandler { stop.signal() }
            sources.append(source)
        }
        sources.append(hangUp)
        // Remote key sets: a due refresh is started every few seconds (a cheap check when not due).
        let refresh = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "jwtverify.serve.refresh"))
        refresh.schedule(deadline: .now(), repeating: 2.0)
        refresh.setEventHandler {
            let current = service.routes
            Blocking.run { for route in current.routes.values { await route.refreshIfDue() } }
        }
        sources.append(refresh)
        for source in sources { source.resume() }

        stop.wait()
        notifier.send("STOPPING=1")
        StandardError.write("jwtverify serve: stopping; letting open requests finish\n")
        for source in sources { source.cancel() }
        server.drain(seconds: options.drainSeconds)
        StandardError.write("jwtverify serve: stopped\n")
        return .ok
    }

    /// Sends READY=1 once every route can verify (remote key sets fetched), checking every 0.2 s;
    /// until then the status says which routes wait.
    private static func notifyWhenReady(
        _ service: ServeService, _ notifier: ServiceManagerNotifier, on queue: DispatchQueue
    ) {
        let waiting = service.routes.routes.values.filter { !$0.hasKeys }.map(\.name).sorted()
        guard waiting.isEmpty else {
            notifier.send("STATUS=waiting for keys: " + waiting.joined(separator: ", "))
            queue.asyncAfter(deadline: .now() + 0.2) { notifyWhenReady(service, notifier, on: queue) }
            return
        }
        notifier.send(
            "READY=1\nSTATUS=serving \(service.routes.routes.count) route\(service.routes.routes.count == 1 ? "" : "s")"
        )
    }

    /// The `--replay-store`, checked once: one that cannot be reached now does not stop serve
    /// (what needs it is answered 503 until it answers), but is warned about.
    private var replayStore: RedisReplayStore? {
        guard let address = options.replayStore else { return nil }
        let store = RedisReplayStore(address: address)
        if let problem = store.check() {
            StandardError.write(
                "jwtverify serve: warning: --replay-store \(address.display): \(problem.description); "
                    + "DPoP proofs and notifications are answered 503 until it answers\n")
        }
        return store
    }

    /// CLOCK_MONOTONIC in microseconds, as systemd's RELOADING=1 asks.
    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    /// A window file of `--state-dir` that cannot be used, as the command's failure: 65 for a file
    /// that is not one, 66 for one that cannot be read, 73 for one that cannot be written. serve
    /// never replaces such a file: the IDs in it would be forgotten.
    private static func failure(_ error: NotificationWindowFileError) -> CommandFailure {
        let status: ExitStatus =
            switch error.reason {
            case .unreadable: .noInput
            case .unwritable: .cannotCreate
            default: .dataError
            }
        let advice =
            error.reason == .unwritable ? "" : " (serve leaves it as it is: move it away to start with an empty window)"
        return CommandFailure(status: status, message: "--state-dir: \(error.description)\(advice)")
    }

    /// SIGHUP: the config file and the key files again; a failure keeps what was serving.
    private func reload(_ service: ServeService) {
        do throws(CommandFailure) {
            var commandLine: RouteOptions? = nil
            if options.route.isGiven { commandLine = options.route }
            let routes = try ServeRoutes.load(
                commandLine: commandLine, configFile: options.configFile, requireKeys: true,
                replayStore: service.replayStore)
            do throws(NotificationWindowFileError) {
                try service.openWindows(for: routes)
            } catch {
                throw Self.failure(error)
            }
            service.replace(routes)
            service.metrics.reload(outcome: "ok")
            StandardError.write(
                "jwtverify serve: reloaded (\(routes.routes.count) route\(routes.routes.count == 1 ? "" : "s"))\n")
        } catch {
            service.metrics.reload(outcome: "failed")
            StandardError.write(
                "jwtverify serve: reload failed, still serving the previous configuration: \(error.message)\n")
        }
    }
}
