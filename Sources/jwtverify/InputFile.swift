import JWTVerify

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An opened input: a file, or standard input for `-` (or no operands).
struct InputFile {
    let name: String
    let fd: Int32

    /// Opens every input before any is read, so a missing file fails the run up front (exit 66).
    static func openAll(_ paths: [String]) throws(CommandFailure) -> [InputFile] {
        if paths.isEmpty { return [InputFile(name: "-", fd: 0)] }
        var opened: [InputFile] = []
        for path in paths {
            if path == "-" {
                opened.append(InputFile(name: "-", fd: 0))
                continue
            }
            let fd = open(localPath(path), O_RDONLY)
            if fd < 0 {
                let reason = String(cString: strerror(errno))
                for file in opened { file.close() }
                throw CommandFailure(status: .noInput, message: "cannot open \(path): \(reason)")
            }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                Glibc.close(fd)
                for file in opened { file.close() }
                throw CommandFailure(status: .noInput, message: "\(path) is a directory")
            }
            opened.append(InputFile(name: path, fd: fd))
        }
        return opened
    }

    /// A `file:` URI as a local path (`file:/var/log/a.log`, `file:///var/log/a.log`), so that the
    /// names a Spark job or a Hadoop listing gives can be passed back; anything else as given.
    static func localPath(_ path: String) -> String {
        if path.hasPrefix("file:///") { return String(path.dropFirst(7)) }
        if path.hasPrefix("file:/") && !path.hasPrefix("file://") { return String(path.dropFirst(5)) }
        return path
    }

    /// The whole of a small file (a config, a report, a key), at most `limit` octets
    /// (``LocalFile/read(_:limit:)``): 66 when it cannot be opened, 65 over the limit, 74 else.
    static func readAll(_ path: String, limit: Int = 16 << 20) throws(CommandFailure) -> [UInt8] {
        switch LocalFile.read(localPath(path), limit: limit) {
        case .success(let bytes): return bytes
        case .failure(let failure) where !failure.isUnreadable:
            throw CommandFailure(status: .dataError, message: failure.description)
        case .failure(let failure):
            throw CommandFailure(
                status: failure.description.hasPrefix("cannot read") ? .ioError : .noInput, message: failure.description
            )
        }
    }

    func close() {
        if fd != 0 { _ = Glibc.close(fd) }
    }
}
