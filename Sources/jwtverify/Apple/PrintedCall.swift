import Synchronization

/// What one `jwtverify apple` REST call prints, and how it ends: its one JSON object for stdout
/// and its exit status. ``run(_:)`` waits for the call, prints the object and returns the status.
struct PrintedCall: Sendable {
    /// The JSON object, printed on stdout as one line.
    var json: String
    /// The exit status.
    var status: ExitStatus

    /// Runs `call` to its end on this thread's behalf, prints its object and returns its status.
    static func run(_ call: @escaping @Sendable () async -> PrintedCall) -> ExitStatus {
        let printed = Mutex(PrintedCall(json: "", status: .internalError))
        Blocking.run {
            let result = await call()
            printed.withLock { $0 = result }
        }
        let outcome = printed.withLock { $0 }
        print(outcome.json)
        return outcome.status
    }
}
