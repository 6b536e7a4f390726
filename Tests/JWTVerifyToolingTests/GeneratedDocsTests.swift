import Foundation
import JWTVerify
import JWTVerifyTooling
import Testing

/// The docs' provider and reason tables are made from the registry: a stale one fails here, and
/// `scripts/docs-tables` (which runs this with `JWTVERIFY_WRITE_DOCS=1`) rewrites them.
@Suite("generated docs tables")
struct GeneratedDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("every generated block in the README and DocC is what the registry makes", arguments: GeneratedDocs.files)
    func upToDate(_ file: String) throws {
        let url = Self.root.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("<!-- generated: "), "\(file) holds no generated block")
        let fresh = try GeneratedDocs.rewrite(text)
        if ProcessInfo.processInfo.environment["JWTVERIFY_WRITE_DOCS"] == "1" {
            try fresh.write(to: url, atomically: true, encoding: .utf8)
        } else {
            #expect(fresh == text, "\(file) is stale: run scripts/docs-tables")
        }
    }

    @Test("each profile has a row, each reason the verifier gives has one, in the order the checks run")
    func rows() throws {
        let readme = try #require(GeneratedDocs.block("providers"))
        for profile in ProviderRegistry.profiles {
            #expect(readme.contains(profile.documentation.commandLine), "\(profile.name)")
            #expect(try #require(GeneratedDocs.block("profiles")).contains("| `\(profile.name)` |"))
        }
        let table = try #require(GeneratedDocs.block("reasons"))
        let codes = table.split(separator: "\n").dropFirst(2).map { $0.split(separator: "`")[1] }
        #expect(codes.map(String.init) == VerificationError.Reason.all.map(\.rawValue))
        // Every reason a provider declares is among them, once, with the generic checks first.
        #expect(Set(codes).count == codes.count)
        #expect(codes.prefix(8).map(String.init) == VerificationError.Reason.generic.prefix(8).map(\.rawValue))
        #expect(codes.contains("hosted_domain_mismatch") && codes.contains("bundle_mismatch"))
        #expect(codes.last == "jwks_unavailable")
    }

    @Test("a block of an unknown name, or one left open, is refused rather than kept")
    func refused() {
        #expect(throws: GeneratedDocsError.self) {
            try GeneratedDocs.rewrite("<!-- generated: nope -->\n<!-- end generated: nope -->")
        }
        #expect(throws: GeneratedDocsError.self) { try GeneratedDocs.rewrite("<!-- generated: reasons -->\n| x |") }
    }
}
