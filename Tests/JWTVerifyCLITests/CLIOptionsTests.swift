import Foundation
import JWTVerify
import Testing

/// Each command's parser and `--help` come from one declaration per option: every spelling a
/// subcommand accepts is listed in its help's OPTIONS section, and nothing else is.
@Suite("options declared once")
struct CLIOptionsTests {
    static let commands: [(name: String, helpWords: [String])] = [
        ("verify", ["verify", "--help"]), ("audit", ["audit", "--help"]), ("inspect", ["inspect", "--help"]),
        ("bench", ["bench", "--help"]), ("jwks", ["jwks", "--help"]), ("apple", ["apple", "--help"]),
    ]

    /// The option spellings named at the start of the OPTIONS section's entries.
    static func listedOptions(_ help: String) -> Set<String> {
        guard let start = help.range(of: "OPTIONS:\n") else { return [] }
        var names: Set<String> = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard line.hasPrefix("  -") else { continue }
            // "  -q, --quiet" or "  --jwks SRC   Key set...": names are the comma-separated words starting with "-".
            let head = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: true)
            for word in head {
                let name = word.hasSuffix(",") ? word.dropLast() : word
                guard name.hasPrefix("-") else { break }
                names.insert(String(name))
                if !word.hasSuffix(",") { break }
            }
        }
        return names
    }

    @Test("every accepted option is in --help, and every option in --help is accepted", arguments: commands.map(\.name))
    func helpMatchesParser(_ command: String) throws {
        let accepted = try CLIRunner.run(["options", command])
        #expect(accepted.status == 0)
        let names = Set(String(decoding: accepted.stdout, as: UTF8.self).split(separator: "\n").map(String.init))
        #expect(names.count >= 3)
        let help = try CLIRunner.run(Self.commands.first { $0.name == command }!.helpWords)
        #expect(help.status == 0)
        let listed = Self.listedOptions(String(decoding: help.stdout, as: UTF8.self))
        #expect(
            listed == names,
            "in help only: \(listed.subtracting(names).sorted()); accepted only: \(names.subtracting(listed).sorted())")
    }

    @Test(
        "the profile flags are made from the profiles' declared settings: each face takes every setting declared for it, and the generic flags"
    )
    func sharedPolicyFlags() throws {
        let faces: [(String, ProfileSetting.Faces)] = [
            ("verify", .verify), ("audit", .audit), ("inspect", .inspect), ("serve", .serve),
        ]
        for (command, face) in faces {
            let names = Set(
                String(decoding: try CLIRunner.run(["options", command]).stdout, as: UTF8.self).split(separator: "\n")
                    .map(String.init))
            let declared = ProviderRegistry.settings.filter { $0.faces.contains(face) }.map(\.flag)
            #expect(!declared.isEmpty)
            for flag in declared + [
                "--profile", "--issuer", "--audience", "--nonce", "--leeway", "--now", "--algorithms",
                "--max-token-bytes",
                "--jwks", "--jwks-cache",
            ] {
                #expect(names.contains(flag), "\(command) lacks \(flag)")
            }
        }
        // A setting no face takes is never a flag (the OCSP transport the command line gives itself).
        #expect(!ProviderRegistry.settings.contains(.ocspTransport))
    }

    @Test(
        "every profile, key-set preset and reason code is listed where users look: the help, the README and the DocC guide"
    )
    func listsAreComplete() throws {
        func help(_ words: String...) throws -> String { try CLIRunner.run(Array(words)).stdoutText }
        func file(_ path: String) throws -> String {
            try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        }
        let readme = try file("README.md")
        let reasonArticle = try file("Sources/JWTVerify/JWTVerify.docc/ReasonCodes.md")
        let policyArticle = try file("Sources/JWTVerify/JWTVerify.docc/PoliciesAndProviders.md")
        let reasonStart = try #require(readme.range(of: "## Reason codes")).lowerBound
        let reasonSection = String(readme[reasonStart...].prefix(3000))
        var missing: [String] = []
        for reason in VerificationError.Reason.all.map(\.rawValue) {
            if !reasonArticle.contains("| `\(reason)` |") { missing.append("\(reason) in the DocC reason article") }
            if !reasonSection.contains("`\(reason)`") { missing.append("\(reason) in the README's reason codes") }
        }
        let helps = [
            "verify": try help("verify", "--help"), "audit": try help("audit", "--help"),
            "inspect": try help("inspect", "--help"),
            "serve": try help("serve", "--help"),
        ]
        for profile in VerificationPolicy.profileNames {
            for (command, text) in helps where !text.contains(profile) {
                missing.append("profile \(profile) in \(command) --help")
            }
            if !readme.contains("--profile \(profile)") { missing.append("profile \(profile) in the README") }
            if !policyArticle.contains("| `\(profile)` |") {
                missing.append("profile \(profile) in the DocC policies article")
            }
        }
        let jwksHelp = try help("jwks", "--help")
        for preset in KeySetSource.presetNames {
            for (command, text) in helps.merging(["jwks": jwksHelp], uniquingKeysWith: { a, _ in a })
            where !text.contains(preset) {
                missing.append("preset \(preset) in \(command) --help")
            }
            if !readme.contains("`\(preset)`") { missing.append("preset \(preset) in the README") }
            #expect(KeySetSource.presets[preset] != nil)
        }
        #expect(Set(KeySetSource.presetNames) == Set(KeySetSource.presets.keys))
        #expect(missing.isEmpty, "missing: \(missing)")
    }
}
