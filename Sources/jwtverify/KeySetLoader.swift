import JWTVerify

/// Loads and merges the `--jwks` files, reporting unusable entries on stderr.
enum KeySetLoader {
    static func load(_ paths: [String]) throws(CommandFailure) -> JWKSet {
        var merged: JWKSet? = nil
        for path in paths {
            do {
                let set = try JWKSet(contentsOfFile: path)
                merged = merged?.merging(set) ?? set
            } catch {
                throw CommandFailure(
                    status: error.isMissingFile ? .noInput : .dataError, message: "--jwks \(path): \(error)")
            }
        }
        guard let keys = merged else { throw .usage("--jwks is required") }
        for key in keys.keys {
            if let reason = key.unusableReason {
                StandardError.write("jwtverify: warning: key \(key.keyID.map { "\"\($0)\"" } ?? "(no kid)") is unusable: \(reason)\n")
            }
        }
        guard keys.keys.contains(where: { $0.unusableReason == nil }) else {
            throw CommandFailure(status: .dataError, message: "no usable key in \(paths.joined(separator: ", "))")
        }
        return keys
    }
}
