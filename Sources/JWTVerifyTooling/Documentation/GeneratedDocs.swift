import JWTVerify

/// The docs' tables made from the registry (``ProviderRegistry``, ``ReasonEntry``), never kept by
/// hand: each is a block between `<!-- generated: NAME -->` and `<!-- end generated: NAME -->` in
/// the README or a DocC article. `scripts/docs-tables` rewrites them, and a test fails when one is
/// stale.
package enum GeneratedDocs {
    /// The files that hold generated blocks, relative to the package's root.
    package static let files = [
        "README.md", "Sources/JWTVerify/JWTVerify.docc/PoliciesAndProviders.md",
        "Sources/JWTVerify/JWTVerify.docc/ReasonCodes.md",
    ]

    /// The content of the block named `name`, or `nil` for a name no table has.
    package static func block(_ name: String) -> String? {
        switch name {
        case "providers": providersWithExamples
        case "presets": presets
        case "profiles": profiles
        case "reasons": reasonTable
        case "reason-list": reasonList
        default: nil
        }
    }

    /// `text` with every generated block rewritten; throws for a block of an unknown name or one
    /// that is not closed.
    package static func rewrite(_ text: String) throws(GeneratedDocsError) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            guard let name = marker(lines[index], "<!-- generated: ") else {
                index += 1
                continue
            }
            guard let content = block(name) else { throw GeneratedDocsError("no generated table is named \(name)") }
            guard let end = lines[(index + 1)...].firstIndex(where: { marker($0, "<!-- end generated: ") == name })
            else {
                throw GeneratedDocsError("the generated block \(name) is not closed")
            }
            let replacement = content.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.replaceSubrange((index + 1)..<end, with: replacement)
            index += replacement.count + 2
        }
        return lines.joined(separator: "\n")
    }

    /// The name in a marker line `prefix NAME -->`.
    private static func marker(_ line: String, _ prefix: String) -> String? {
        guard line.hasPrefix(prefix), line.hasSuffix(" -->") else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(4))
    }

    /// The README's table: each provider, its preset in use and its command line.
    static var providersWithExamples: String {
        var rows = ["| provider | library | CLI |", "| --- | --- | --- |"]
        for profile in ProviderRegistry.profiles {
            let docs = profile.documentation
            rows.append("| \(docs.title) | \(docs.example) | \(docs.commandLine) |")
        }
        rows.append(
            "| no provider rules | `.generic(issuer:audiences:)`, or `VerificationPolicy(issuers:audiences:…)` "
                + "| `--issuer … --audience …` |")
        return rows.joined(separator: "\n")
    }

    /// DocC's table of presets.
    static var presets: String {
        var rows = ["| provider | preset |", "| --- | --- |"]
        for profile in ProviderRegistry.profiles {
            rows.append("| \(profile.documentation.title) | ``VerificationPolicy/\(profile.documentation.preset)`` |")
        }
        rows.append("| no provider rules | ``VerificationPolicy/generic(issuer:audiences:algorithms:)`` |")
        return rows.joined(separator: "\n")
    }

    /// DocC's table of profile names, with their presets and key sets.
    static var profiles: String {
        var rows = ["| profile | preset | key set |", "| --- | --- | --- |"]
        for profile in ProviderRegistry.profiles {
            let docs = profile.documentation
            rows.append("| `\(profile.name)` | ``VerificationPolicy/\(docs.preset)`` | \(docs.keys) |")
        }
        return rows.joined(separator: "\n")
    }

    /// DocC's table of reasons, in the order the checks run.
    static var reasonTable: String {
        (["| reason | meaning |", "| --- | --- |"]
            + ReasonEntry.all.map { "| `\($0.reason.rawValue)` | \($0.meaning) |" })
            .joined(separator: "\n")
    }

    /// The README's list of reasons, in the order the checks run, wrapped at 100 columns.
    static var reasonList: String {
        let words = ReasonEntry.all.map { "`\($0.reason.rawValue)`" }
        var lines: [String] = []
        var line = ""
        for (index, word) in words.enumerated() {
            let piece = word + (index == words.count - 1 ? "." : ",")
            if !line.isEmpty && line.count + 1 + piece.count > 100 {
                lines.append(line)
                line = piece
            } else {
                line += (line.isEmpty ? "" : " ") + piece
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}

/// Why generated blocks could not be rewritten.
package struct GeneratedDocsError: Error, CustomStringConvertible {
    /// What is wrong.
    package let description: String
    init(_ description: String) { self.description = description }
}
