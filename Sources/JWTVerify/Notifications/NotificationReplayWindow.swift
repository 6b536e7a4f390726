import Synchronization

/// The notifications seen lately, by their unique ID, so that a delivery Apple retries (it does
/// on any answer but 200) is acknowledged but not acted on twice.
///
/// Bounded both ways: an ID is kept for ``retention`` seconds after it was first seen, and at
/// most ``capacity`` IDs are kept (the oldest go first). Thread-safe; one lock per sighting.
public final class NotificationReplayWindow: Sendable {
    /// Most IDs kept.
    public let capacity: Int
    /// Seconds an ID is kept after its first sighting.
    public let retention: Double
    private let state: Mutex<State>

    private struct State {
        /// First sighting of each ID kept.
        var seen: [String: Double] = [:]
        /// IDs in the order they were first seen, from `start` on.
        var order: [(id: String, time: Double)] = []
        var start = 0

        mutating func evictOldest() {
            seen[order[start].id] = nil
            start += 1
            if start >= 1024, start * 2 >= order.count {
                order.removeFirst(start)
                start = 0
            }
        }
    }

    /// A window keeping at most `capacity` IDs (100,000 by default), each for `retention`
    /// seconds (four days by default: App Store retries span three days).
    public init(capacity: Int = 100_000, retention: Double = 4 * 86_400) {
        precondition(capacity > 0 && retention > 0, "a replay window needs a positive capacity and retention")
        self.capacity = capacity
        self.retention = retention
        self.state = Mutex(State())
    }

    /// Records that the notification `id` arrived at `time`; `true` when it was already seen
    /// within the window (a duplicate: acknowledge it, do not act on it again).
    public func recordSighting(of id: String, at time: Double) -> Bool {
        state.withLock { state in
            while state.start < state.order.count, state.order[state.start].time < time - retention { state.evictOldest() }
            if state.seen[id] != nil { return true }
            if state.seen.count >= capacity { state.evictOldest() }
            state.seen[id] = time
            state.order.append((id, time))
            return false
        }
    }

    /// IDs kept now.
    public var count: Int { state.withLock { $0.seen.count } }
}
