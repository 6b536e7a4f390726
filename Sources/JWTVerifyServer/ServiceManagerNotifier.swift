import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// Tells a service manager how the server is doing, as systemd's `Type=notify` expects: one
/// datagram per state (`READY=1`, `RELOADING=1`, `STOPPING=1`, `STATUS=...`) to the Unix socket
/// named by `NOTIFY_SOCKET` (a path, or `@` for the abstract namespace). Without that variable
/// (not run by a service manager) it does nothing.
package struct ServiceManagerNotifier: Sendable {
    private let socketPath: [UInt8]?

    /// A notifier for the socket the environment names, if any.
    package init(environment name: String? = getenv("NOTIFY_SOCKET").map { String(cString: $0) }) {
        guard let name, !name.isEmpty, name.utf8.count < 108, name.hasPrefix("/") || name.hasPrefix("@") else {
            socketPath = nil
            return
        }
        socketPath = Array(name.utf8)
    }

    /// Whether a service manager listens.
    package var isActive: Bool { socketPath != nil }

    /// Sends `state` (lines of `NAME=value`); false when it could not be sent.
    @discardableResult
    package func send(_ state: String) -> Bool {
        guard let socketPath else { return false }
        return cmhd_notify(String(decoding: socketPath, as: UTF8.self), state) == 1
    }
}
