#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine's processors, for default thread counts.
package enum Processors {
    /// Online processors (at least 1).
    package static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
