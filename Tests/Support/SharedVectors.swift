package import Foundation

/// Locates the shared conformance vectors (`../shared/vectors` beside the repository) and the
/// project's own `Vectors/` folder, from this file's path: no bundle resources needed.
package enum SharedVectors {
    /// The repository root.
    package static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // root

    /// `../shared/vectors`, or `JWTVERIFY_SHARED_VECTORS` when set.
    package static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["JWTVERIFY_SHARED_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    /// Whether the shared vectors are present. When they are not, the suites that need them are
    /// disabled and the test output says why.
    package static let available: Bool = FileManager.default.fileExists(
        atPath: directory.appendingPathComponent("README.md").path)

    /// The message shown when the vectors are absent.
    package static let missingMessage = "shared vectors not found at \(directory.path): conformance suites SKIPPED"

    /// The project's own `Vectors/` folder.
    package static let projectVectors = repositoryRoot.appendingPathComponent("Vectors")

    /// Reads a file below the shared vectors folder.
    package static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }

    /// Reads and parses a JSON file below the shared vectors folder.
    package static func json(_ relativePath: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: data(relativePath), options: [.fragmentsAllowed]) as? [String: Any]
            ?? [:]
    }
}

/// Hex decoding for Wycheproof fields.
extension Array where Element == UInt8 {
    package init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            default: c - 0x41 + 10
            }
        }
        while let high = iterator.next(), let low = iterator.next() { bytes.append(nibble(high) << 4 | nibble(low)) }
        self = bytes
    }
}
