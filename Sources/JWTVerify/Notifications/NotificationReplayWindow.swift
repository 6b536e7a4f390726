import Synchronization

/// The notifications seen lately, by their unique ID, so that a delivery Apple retries (it does
/// on any answer but 200, for days) is acknowledged but not acted on twice.
///
/// Bounded both ways: an ID is kept for ``retention`` seconds after it was first seen (seven days
/// by default, Apple's retry horizon), and at most ``capacity`` IDs are kept (100,000 by default;
/// the oldest go first). IDs are compared as bytes (their UTF-8), never by Unicode equivalence;
/// an ID over 64 octets is kept as its SHA-256. Thread-safe; one lock per sighting.
///
/// In memory by default, so a restart forgets it. ``init(persistingTo:capacity:retention:)``
/// keeps it in a file instead: loaded when the window is made, and each new sighting flushed to
/// the disk before ``recordSighting(of:at:)`` returns, so a notification acknowledged after that
/// is still a duplicate after a restart or a crash.
///
/// ### The file
///
/// Text, one line each: `jwtverify-notification-window 1`, then one line per ID kept,
/// `<first sighting in seconds since 1970> <the ID's bytes in lowercase hex>` (an ID over 64
/// octets as `ff` and its SHA-256), in the order the IDs were first seen. A new sighting appends
/// its line and calls `fsync` (about 0.2 ms on an ext4 disk; a duplicate writes nothing and takes
/// about a microsecond); when the file holds twice the live IDs and 1,024 more, it is rewritten
/// with the live ones alone (a temporary file in the same folder, `fsync`, `rename`), as it is
/// when the window is made. So the file stays under `32 + (2 × capacity + 1,024) × 154` octets,
/// 31 MB at the default capacity (100,000 UUIDs take 8.6 MB after a rewrite); a larger file is
/// refused. A last line a crash cut short is dropped (its notification was never acknowledged);
/// any other damage, and a file of another format, is refused with
/// ``NotificationWindowFileError``, never ignored or overwritten. One process at a time may keep a
/// window in a given file.
public final class NotificationReplayWindow: Sendable {
    /// Most IDs kept.
    public let capacity: Int
    /// Seconds an ID is kept after its first sighting.
    public let retention: Double
    /// The file the window is kept in (``init(persistingTo:capacity:retention:)``), or `nil` when
    /// it is in memory only.
    public let path: String?
    private let state: Mutex<State>

    /// The default ``capacity``: 100,000 IDs.
    public static let defaultCapacity = 100_000
    /// The default ``retention``: seven days, which covers Apple's retries (App Store Server
    /// Notifications retry for days after a failed delivery).
    public static let defaultRetention: Double = 7 * 86_400

    private struct State {
        /// First sighting of each ID kept.
        var seen: [NotificationKey: Double] = [:]
        /// IDs in the order they were first seen, from `start` on.
        var order: [NotificationWindowFile.Sighting] = []
        var start = 0
        /// Where new sightings are written, when the window is persisted.
        var file: NotificationWindowFile?

        /// The IDs kept, oldest first.
        var live: ArraySlice<NotificationWindowFile.Sighting> { order[start...] }

        mutating func evictOldest() {
            seen[order[start].key] = nil
            start += 1
            if start >= 1024, start * 2 >= order.count {
                order.removeFirst(start)
                start = 0
            }
        }

        /// A sighting of `key` at `time`: `true` for a duplicate; else `persist` runs before the
        /// ID is kept (and a throw leaves it out).
        mutating func sight(
            _ key: NotificationKey, at time: Double, capacity: Int, retention: Double,
            persist: (inout State) throws(NotificationWindowFileError) -> Void
        ) throws(NotificationWindowFileError) -> Bool {
            while start < order.count, order[start].time < time - retention { evictOldest() }
            if seen[key] != nil { return true }
            try persist(&self)
            if seen.count >= capacity { evictOldest() }
            seen[key] = time
            order.append((key, time))
            return false
        }
    }

    /// A window in memory keeping at most `capacity` IDs, each for `retention` seconds.
    public init(
        capacity: Int = NotificationReplayWindow.defaultCapacity,
        retention: Double = NotificationReplayWindow.defaultRetention
    ) {
        precondition(capacity > 0 && retention > 0, "a replay window needs a positive capacity and retention")
        self.capacity = capacity
        self.retention = retention
        self.path = nil
        self.state = Mutex(State())
    }

    /// A window kept in the file at `path`: the IDs the file holds are loaded (none when it does
    /// not exist yet), the file is rewritten with them at once (so a folder that cannot be
    /// written to is found now, not at the first notification), and every new sighting is
    /// appended and flushed before ``recordSighting(of:at:)`` returns. IDs past their retention
    /// are dropped at the next sighting, as in memory.
    ///
    /// - Throws: ``NotificationWindowFileError``: `state_unreadable`, `state_too_large` or
    ///   `state_malformed` for a file that cannot be used (it is left as it is, for a person to
    ///   look at), `state_unwritable` when it cannot be written.
    public init(
        persistingTo path: String, capacity: Int = NotificationReplayWindow.defaultCapacity,
        retention: Double = NotificationReplayWindow.defaultRetention
    ) throws(NotificationWindowFileError) {
        precondition(capacity > 0 && retention > 0, "a replay window needs a positive capacity and retention")
        self.capacity = capacity
        self.retention = retention
        self.path = path
        var state = State()
        for (key, time) in try NotificationWindowFile.read(path, capacity: capacity) {
            _ = try state.sight(key, at: time, capacity: capacity, retention: retention) {
                _ throws(NotificationWindowFileError) in
            }
        }
        state.file = try NotificationWindowFile(path: path, live: state.live)
        self.state = Mutex(state)
    }

    /// Records that the notification `id` arrived at `time`; `true` when it was already seen
    /// within the window (a duplicate: acknowledge it, do not act on it again). A persisted
    /// window has the new ID on the disk when this returns `false`.
    ///
    /// - Throws: ``NotificationWindowFileError`` (`state_unwritable`) when a persisted window
    ///   cannot write the sighting: the ID is not recorded; do not acknowledge the notification
    ///   (answer 503, so that Apple delivers it again). A window in memory never throws.
    public func recordSighting(of id: String, at time: Double) throws(NotificationWindowFileError) -> Bool {
        let key = NotificationKey(id)
        return try state.withLock { state throws(NotificationWindowFileError) in
            try state.sight(key, at: time, capacity: capacity, retention: retention) {
                state throws(NotificationWindowFileError) in
                guard let file = state.file else { return }
                if file.needsRewrite(live: state.seen.count) { try file.rewrite(state.live) }
                try file.append(key, at: time)
            }
        }
    }

    /// IDs kept now.
    public var count: Int { state.withLock { $0.seen.count } }
}
