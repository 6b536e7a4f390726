import Foundation
import Testing

/// Every Swift block of the README, and every whole example (one that starts with its imports)
/// of the DocC articles of both products, pasted into a package of its own that depends on this
/// one by path, as the README's manifest says (`.package(path: "../jwtverify")`, products named
/// with `package: "jwtverify"`), as a user's service would: each block is one module of that
/// package, and `swift build` must compile them all.
@Suite("README and DocC examples compile in a consumer package")
struct ReadmeConsumerTests {
    /// The ```swift blocks of the file at `path` (from the repository's root), in order.
    static func swiftBlocks(in path: String = "README.md") throws -> [String] {
        let readme = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]? = nil
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil {
                if line == "```swift" { current = [] }
            } else if line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test("each README Swift block builds as pasted in a package that depends on JWTVerify by path")
    func consumerBuilds() throws {
        // A manifest block (the install snippet) is the consumer's own Package.swift: its
        // dependency is what this test replaces by a path.
        let all = try Self.swiftBlocks()
        let manifests = all.filter { $0.hasPrefix("// swift-tools-version") }
        #expect(manifests.count == 1)
        #expect(manifests.allSatisfy { $0.contains(#".product(name: "JWTVerify", package: "jwtverify")"#) })
        // The path form the README gives for a checkout, used below exactly as printed.
        let pathDependency = #".package(path: "../jwtverify")"#
        #expect(manifests.allSatisfy { $0.contains(pathDependency) })
        var blocks = all.filter { !$0.hasPrefix("// swift-tools-version") }
        #expect(blocks.count >= 4)
        // Every block says what it imports: nothing is added around it.
        for block in blocks {
            #expect(block.hasPrefix("import "), "a README block does not start with its imports:\n\(block.prefix(200))")
        }
        var examples: [String] = []
        for catalog in ["Sources/JWTVerify/JWTVerify.docc", "Sources/JWTVerifyRemote/JWTVerifyRemote.docc"] {
            let articles = try FileManager.default.contentsOfDirectory(
                atPath: CLIRunner.repositoryRoot.appendingPathComponent(catalog).path)
            let found = try articles.filter { $0.hasSuffix(".md") }.sorted().flatMap {
                try Self.swiftBlocks(in: "\(catalog)/\($0)")
            }
            .filter { $0.hasPrefix("import ") }
            #expect(!found.isEmpty, "\(catalog) has no whole example")
            examples += found
        }
        #expect(examples.count >= 7)  // the batch article's two among them
        blocks += examples

        // The consumer sits beside a folder named jwtverify (a link to this checkout), as in the README.
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-consumer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let package = parent.appendingPathComponent("consumer")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: parent.appendingPathComponent("jwtverify"), withDestinationURL: CLIRunner.repositoryRoot)
        var targets: [String] = []
        for (index, block) in blocks.enumerated() {
            let name = "Example\(index + 1)"
            let folder = package.appendingPathComponent("Sources/\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try block.write(to: folder.appendingPathComponent("\(name).swift"), atomically: true, encoding: .utf8)
            targets.append(
                #"        .target(name: "\#(name)", dependencies: [.product(name: "JWTVerify", package: "jwtverify"), .product(name: "JWTVerifyRemote", package: "jwtverify")]),"#
            )
        }
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "ReadmeConsumer",
                platforms: [.macOS(.v15)],
                dependencies: [\(pathDependency)],
                targets: [
            \(targets.joined(separator: "\n"))
                ]
            )

            """
        try manifest.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)

        // The scratch folder stays in this repository's .build, so a second run builds incrementally.
        let scratch = CLIRunner.repositoryRoot.appendingPathComponent(".build/readme-consumer").path
        let (status, log) = try ExternalProgram.run(
            "/usr/bin/env", ["swift", "build", "--package-path", package.path, "--scratch-path", scratch])
        #expect(status == 0, "swift build of the README's examples failed:\n\(log.suffix(4000))")
    }
}
