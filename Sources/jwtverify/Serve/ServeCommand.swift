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
        let commandLine = options.route.isGiven ? options.route : nil
        let routes = try ServeRoutes.load(commandLine: commandLine, configFile: options.configFile, requireKeys: false)
        let write: @Sendable (String) -> Void = { line in StandardError.write(line) }
        let log = options.accessLog ? write : nil
        let service = ServeService(routes: routes, accessLog: log)
        let limits = MicroHTTPDServer.Limits(
            threads: options.threads, connections: options.maxConnections, timeoutSeconds: options.timeoutSeconds,
            headerBytes: options.maxHeaderBytes, bodyBytes: options.maxBodyBytes)
        // Signals are taken by dispatch sources, not by handlers running on a server thread.
        for number in [SIGHUP, SIGTERM, SIGINT] { signal(number, SIG_IGN) }
        let server: MicroHTTPDServer
        do throws(MicroHTTPDServer.ListenFailure) {
            server = try MicroHTTPDServer(host: options.host, port: options.port, limits: limits, service: service)
        } catch {
            throw CommandFailure(status: .osError, message: "cannot listen on \(options.host):\(options.port): \(error.description)")
        }
        for route in routes.routes.values.sorted(by: { $0.name < $1.name })
        where route.requiresNonce && route.configuration.nonce == nil {
            StandardError.write(
                "jwtverify serve: warning: route \"\(route.name)\" requires a raw nonce, which an /auth request does not carry: "
                    + "its /auth answers are nonce_missing (give --skip-nonce if this service uses no nonces)\n")
        }
        StandardError.write(
            "jwtverify serve: listening on http://\(options.host):\(server.port) (\(routes.routes.count) route\(routes.routes.count == 1 ? "" : "s"): "
                + routes.routes.keys.sorted().joined(separator: ", ") + ")\n")

        let control = DispatchQueue(label: "jwtverify.serve.control")
        let stop = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceProtocol] = []
        let hangUp = DispatchSource.makeSignalSource(signal: SIGHUP, queue: control)
        hangUp.setEventHandler { reload(service) }
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
        StandardError.write("jwtverify serve: stopping; letting open requests finish\n")
        for source in sources { source.cancel() }
        server.drain(seconds: options.drainSeconds)
        StandardError.write("jwtverify serve: stopped\n")
        return .ok
    }

    /// SIGHUP: the config file and the key files again; a failure keeps what was serving.
    private func reload(_ service: ServeService) {
        do {
            var commandLine: RouteOptions? = nil
            if options.route.isGiven { commandLine = options.route }
            let routes = try ServeRoutes.load(commandLine: commandLine, configFile: options.configFile, requireKeys: true)
            service.replace(routes)
            service.metrics.reload(outcome: "ok")
            StandardError.write("jwtverify serve: reloaded (\(routes.routes.count) route\(routes.routes.count == 1 ? "" : "s"))\n")
        } catch {
            service.metrics.reload(outcome: "failed")
            StandardError.write("jwtverify serve: reload failed, still serving the previous configuration: \(error.message)\n")
        }
    }
}
