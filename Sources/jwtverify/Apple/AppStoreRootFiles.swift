import JWTVerify

/// `--apple-root FILE` (repeatable): the roots App Store chains must lead to, read from files.
enum AppStoreRootFiles {
    /// The roots in `paths` (PEM or DER, each at most 1 MiB), or Apple Root CA - G3 when none.
    static func trust(_ paths: [String]) throws(CommandFailure) -> AppStoreTrust {
        guard !paths.isEmpty else { return .appleRootCAG3 }
        var roots: [[UInt8]] = []
        for path in paths { roots.append(try InputFile.readAll(path, limit: 1 << 20)) }
        do {
            return try AppStoreTrust(rootCertificates: roots)
        } catch {
            throw CommandFailure(status: .dataError, message: "--apple-root \(paths[error.index]): \(error)")
        }
    }
}
