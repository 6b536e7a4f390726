import Dispatch

/// Runs async work to completion from synchronous command code.
enum Blocking {
    static func run(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }
}
