package import Foundation

/// A folder of its own under the temporary directory, removed when the value goes away, holding
/// the test keys (``TokenFactory/jwksJSON``) as a JWKS file unless made without them: what `serve`
/// and the CLI tests point `--jwks` at, and where they put their other files.
package final class TestWorkspace: @unchecked Sendable {
    /// The folder.
    package let directory: URL
    /// The key file in the folder (written only when the workspace was made with keys).
    package let jwks: URL

    /// A new folder `jwtverify-<label>-<UUID>`, with the test keys in `keysFile` unless `withKeys` is false.
    package init(_ label: String = "serve", keysFile: String = "jwks.json", withKeys: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("jwtverify-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        jwks = directory.appendingPathComponent(keysFile)
        if withKeys { try TokenFactory.jwksJSON.write(to: jwks, atomically: true, encoding: .utf8) }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A file (or folder) in the workspace, by name.
    package func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
}
