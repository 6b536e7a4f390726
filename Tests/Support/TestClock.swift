import Synchronization

/// A clock a test sets and moves by hand, for the `clock:` parameters of policies, key sets and clients.
package final class TestClock: Sendable {
    private let value: Mutex<Double>

    /// A clock reading `start` seconds since the epoch.
    package init(_ start: Double) { value = Mutex(start) }

    /// The time it reads.
    package var now: Double { value.withLock { $0 } }
    /// Moves it on by `seconds`.
    package func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
    /// Sets it to `time`.
    package func set(_ time: Double) { value.withLock { $0 = time } }
    /// The clock as the `@Sendable () -> Double` the library takes.
    package var function: @Sendable () -> Double { { self.now } }
}
