import Dispatch
import Synchronization

/// One unknown-`kid` refresh of a ``RemoteKeySet``, as the requests waiting for it see it: it runs
/// in a task of its own, never on a waiter's thread, and each waiter decides how long it waits.
package final class KeyRefresh: Sendable {
    private struct State {
        /// Whether the keys changed, once the fetch has ended.
        var changed: Bool?
        var waiters: [@Sendable (Bool) -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether the fetch brought other keys; `nil` while it runs.
    package var outcome: Bool? { state.withLock { $0.changed } }

    /// Calls `done` once the fetch has ended (at once when it has), on the thread that ends it.
    package func whenDone(_ done: @escaping @Sendable (Bool) -> Void) {
        let now = state.withLock { state -> Bool? in
            if state.changed == nil { state.waiters.append(done) }
            return state.changed
        }
        if let now { done(now) }
    }

    /// Records the fetch's end and tells every waiter.
    package func complete(changed: Bool) {
        let waiters = state.withLock { state -> [@Sendable (Bool) -> Void] in
            state.changed = changed
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter(changed) }
    }

    /// Waits at most `seconds` for the fetch: whether the keys changed, or `nil` when it still runs.
    package func outcome(within seconds: Double) async -> Bool? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
            let once = Mutex(false)
            let resume: @Sendable (Bool?) -> Void = { value in
                let first = once.withLock { resumed in
                    defer { resumed = true }
                    return !resumed
                }
                if first { continuation.resume(returning: value) }
            }
            whenDone { resume($0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { resume(nil) }
        }
    }

    /// ``outcome(within:)`` for a thread that may block.
    package func outcomeBlocking(within seconds: Double) -> Bool? {
        let signal = DispatchSemaphore(value: 0)
        whenDone { _ in signal.signal() }
        _ = signal.wait(timeout: .now() + max(0, seconds))
        return outcome
    }
}
