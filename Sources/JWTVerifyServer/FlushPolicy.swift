/// When an event loop verifies the `/auth` requests it holds (``AuthGathering``), as a plain value
/// so that its rules are tested without a socket:
///
/// - while requests are held, the loop only polls (waits 0 ms) for more work;
/// - it flushes when a poll finds nothing ready (and the daemon has nothing due), or once the held
///   requests have waited through ``maximumWaitingPasses`` passes of other work (connections kept
///   busy, a client trickling bytes, cannot hold them back), or before holding one more than the
///   gathering takes;
/// - while draining, it waits at most 20 ms at a time, so a stop is noticed.
package struct FlushPolicy: Sendable {
    /// Passes of other work held requests wait through at most.
    package static let maximumWaitingPasses = 4

    /// Passes the held requests have waited through since the last flush.
    package private(set) var waitingPasses = 0

    package init() {}

    /// How long the next wait may last, in milliseconds (-1: until something happens):
    /// `daemonTimeout` (the daemon's own, -1 for none) when nothing is held, 0 when a flush has
    /// just resumed connections (the daemon must run them at once) or requests are held; at most
    /// 20 while draining.
    package static func waitMilliseconds(daemonTimeout: Int, holding: Bool, resumed: Bool, draining: Bool) -> Int {
        var timeout = holding ? 0 : daemonDue(daemonTimeout: daemonTimeout, resumed: resumed)
        if draining && (timeout < 0 || timeout > 20) { timeout = 20 }
        return timeout
    }

    /// After a wait that found `ready` descriptors: whether to flush the held requests now. Not
    /// while the daemon has work due at once (its timeout 0, or connections just resumed).
    package mutating func shouldFlush(holding: Bool, ready: Int, daemonTimeout: Int, resumed: Bool) -> Bool {
        guard holding else { return false }
        waitingPasses += 1
        return (ready == 0 && Self.daemonDue(daemonTimeout: daemonTimeout, resumed: resumed) != 0)
            || waitingPasses > Self.maximumWaitingPasses
    }

    /// When the daemon next has work: 0 (now) after a flush resumed connections, which its own
    /// timeout does not count; else its timeout in milliseconds (-1: none).
    private static func daemonDue(daemonTimeout: Int, resumed: Bool) -> Int { resumed ? 0 : daemonTimeout }

    /// A flush happened: the count of waiting passes starts again.
    package mutating func flushed() { waitingPasses = 0 }

    /// Whether the held requests must be flushed before another is held.
    package static func mustFlushBeforeHolding(held: Int, capacity: Int) -> Bool { held >= capacity }
}
