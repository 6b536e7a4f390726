#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole small files, read and written the one way the package does it: a key set, a snapshot,
/// a configuration, a report to render, a `.p8` key.
package enum LocalFile {
    /// Why a file could not be read.
    package struct ReadFailure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, naming the file.
        package let description: String
        /// Whether the file could not be opened or read at all (missing, a folder, no permission),
        /// rather than being over the limit.
        package let isUnreadable: Bool
    }

    /// The whole of `path` (`/dev/stdin` reads standard input), at most `limit` octets.
    package static func read(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            return .failure(
                ReadFailure(description: "cannot open \(path): \(String(cString: strerror(errno)))", isUnreadable: true)
            )
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            return .failure(ReadFailure(description: "\(path) is a directory", isUnreadable: true))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(
                    ReadFailure(
                        description: "cannot read \(path): \(String(cString: strerror(errno)))", isUnreadable: true))
            }
            if n == 0 { return .success(bytes) }
            bytes += chunk[..<n]
            if bytes.count > limit {
                return .failure(ReadFailure(description: "\(path) is larger than \(limit) octets", isUnreadable: false))
            }
        }
    }

    /// Writes `bytes` to `path` atomically: a temporary file in the same folder, written, flushed
    /// to the disk (`fsync`) and renamed over `path`, so a reader sees the old file or the new one,
    /// even after a crash; the folder is then flushed too, so that the rename itself survives a
    /// crash (where the file system allows it). Whether it was written: `false` leaves `path` as
    /// it was.
    @discardableResult
    package static func writeAtomically(_ bytes: [UInt8], to path: String) -> Bool {
        let temporary = path + ".tmp.\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            written += n
        }
        let synced = fsync(fd) == 0
        let closed = close(fd) == 0
        guard written == bytes.count, synced, closed, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        syncFolder(of: path)
        return true
    }

    /// Flushes the folder holding `path` to the disk (its entries: a rename, a new file). Some
    /// file systems cannot; that is not an error, the rename has happened.
    private static func syncFolder(of path: String) {
        let folder: String
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            folder = "."
        }
        let fd = open(folder, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
