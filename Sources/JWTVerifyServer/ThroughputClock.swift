#if canImport(Glibc)
    import Glibc
#endif

/// Monotonic seconds.
package enum ThroughputClock {
    package static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
