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
            let fd = open(path, O_RDONLY)
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

    func close() {
        if fd != 0 { _ = Glibc.close(fd) }
    }
}
