import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own for one piece of work that blocks (libcurl's easy interface), started
/// detached: it ends when the work does, and nobody joins it.
enum DetachedThread {
    /// The work, handed to the new thread with one retain that the thread takes back.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread. When no thread can be made, `body` runs on a global dispatch
    /// queue instead, so it always runs once.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t? = nil
        #endif
        let created = pthread_create(
            &thread, &attributes,
            { pointer in
                #if canImport(Glibc)
                    let work = Unmanaged<Work>.fromOpaque(pointer!).takeRetainedValue()
                #else
                    let work = Unmanaged<Work>.fromOpaque(pointer).takeRetainedValue()
                #endif
                work.body()
                return nil
            }, work)
        guard created == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            DispatchQueue.global().async(execute: body)
            return
        }
    }
}
