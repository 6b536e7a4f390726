internal import COpenSSL

/// The drained contents of OpenSSL's thread-local error queue after a failed call.
///
/// The queue is per thread, so it is drained in the same synchronous call that failed; nothing is
/// left behind for the next call on this thread.
package struct OpenSSLFailure: Error, Sendable, CustomStringConvertible {
    /// What the library was doing when OpenSSL failed.
    package let operation: String
    /// OpenSSL's packed error codes, oldest first.
    package let codes: [UInt]

    /// Empties the current thread's error queue into a value.
    package static func drain(_ operation: String) -> OpenSSLFailure {
        var codes: [UInt] = []
        while case let code = ERR_get_error(), code != 0 {
            if codes.count < 16 { codes.append(code) }
        }
        return OpenSSLFailure(operation: operation, codes: codes)
    }

    /// Discards whatever the current thread's queue holds (after an expected failure, such as a
    /// signature that does not verify).
    static func clear() { ERR_clear_error() }

    /// The operation followed by OpenSSL's own text for each code.
    package var description: String {
        guard !codes.isEmpty else { return "\(operation) failed" }
        let texts = codes.map { code -> String in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
                ERR_error_string_n(code, buffer.baseAddress, 256)
                return String(cString: buffer.baseAddress!)
            }
        }
        return "\(operation) failed: \(texts.joined(separator: "; "))"
    }
}
