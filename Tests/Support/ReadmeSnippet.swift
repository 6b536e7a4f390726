import Foundation

/// Checks that a code snippet kept between markers in a test file appears verbatim in README.md,
/// so the README's examples are the code the tests compile and run.
package enum ReadmeSnippet {
    /// Whether the lines between `// <marker>-BEGIN` and `// <marker>-END` in `sourceFile` appear
    /// in `document` (README.md, or a DocC article, from the repository's root) as a swift block
    /// starting with `import <module>` for each of `modules` (`ReadmeConsumerTests` compiles every
    /// block of the README and of the DocC articles as pasted, imports included).
    package static func isInReadme(
        sourceFile: String, marker: String, importing modules: [String], document: String = "README.md"
    ) throws -> Bool {
        let source = try String(contentsOf: URL(fileURLWithPath: sourceFile), encoding: .utf8)
        guard let begin = source.range(of: "// \(marker)-BEGIN\n"), let end = source.range(of: "// \(marker)-END")
        else {
            return false
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        let imports = modules.map { "import \($0)\n" }.joined()
        return readme.contains("```swift\n" + imports + "\n" + source[begin.upperBound..<end.lowerBound] + "```")
    }

    /// README.md as it is in the repository.
    package static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The fenced blocks of `language` (` ```nginx `) in the README's section `heading` (the
    /// text of a `##` or `###` heading line, up to the next heading of any level), each as
    /// printed, ending in a newline; in order.
    package static func blocks(_ language: String, under heading: String) throws -> [String] {
        var blocks: [String] = []
        var inSection = false
        var block: String? = nil
        for line in try readme().split(separator: "\n", omittingEmptySubsequences: false) {
            if var text = block {
                if line == "```" {
                    blocks.append(text)
                    block = nil
                } else {
                    text += line + "\n"
                    block = text
                }
                continue
            }
            if line.hasPrefix("## ") || line.hasPrefix("### ") {
                inSection = line.drop { $0 == "#" }.dropFirst() == heading[...]
            } else if inSection, line == "```" + language {
                block = ""
            }
        }
        return blocks
    }
}
