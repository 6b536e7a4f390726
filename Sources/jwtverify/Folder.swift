#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Folders a command writes into.
enum Folder {
    /// Makes sure `path` is a folder the process can write to: an existing one, or one created
    /// here with its missing parents (each with `mode`). Fails with exit 73 and the reason.
    static func prepare(_ path: String, mode: mode_t, option: String) throws(CommandFailure) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw CommandFailure(status: .cannotCreate, message: "\(option) \(path): not a folder")
            }
        } else {
            var prefix = path.hasPrefix("/") ? "/" : ""
            for part in path.split(separator: "/") {
                prefix += part
                if mkdir(prefix, mode) != 0 && errno != EEXIST {
                    throw CommandFailure(
                        status: .cannotCreate,
                        message: "\(option) \(path): cannot create \(prefix): \(String(cString: strerror(errno)))")
                }
                prefix += "/"
            }
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw CommandFailure(
                status: .cannotCreate,
                message: "\(option) \(path): cannot write there: \(String(cString: strerror(errno)))")
        }
    }
}
