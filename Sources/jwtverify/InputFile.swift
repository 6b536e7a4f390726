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

    /// The whole of a small file (a config), at most `limit` octets.
    static func readAll(_ path: String, limit: Int = 16 << 20) throws(CommandFailure) -> [UInt8] {
        let file = try openAll([path])[0]
        defer { file.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(file.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(status: .ioError, message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > limit { throw CommandFailure(status: .dataError, message: "\(path) is larger than \(limit) octets") }
        }
    }

    func close() {
        if fd != 0 { _ = Glibc.close(fd) }
    }
}
