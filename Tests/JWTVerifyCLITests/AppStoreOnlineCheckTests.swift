import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// App Store online checks against real OCSP responders: `openssl ocsp` serving a test CA's index
/// on loopback, one for the root's certificates and one for the intermediate's.
@Suite("App Store online checks (OCSP)")
struct AppStoreOnlineCheckTests {
    @Test(
        "good chain: valid; revoked leaf: certificate_revoked; responder down: revocation_unavailable; answers are kept; --online-checks"
    )
    func ocsp() throws {
        let pki = try AppStoreChainFactory()
        let rootPort = ExternalProgram.freePort()
        let caPort = ExternalProgram.freePort()
        try pki.root("root")
        try pki.issue("ca", by: "root", section: "ca", ocsp: "http://127.0.0.1:\(rootPort)")
        try pki.issue("leaf", by: "ca", section: "leaf", ocsp: "http://127.0.0.1:\(caPort)")
        try pki.issue("revoked", by: "ca", section: "leaf", ocsp: "http://127.0.0.1:\(caPort)")
        try pki.issue("unlisted", by: "ca", section: "leaf", ocsp: "http://127.0.0.1:\(caPort)")
        try pki.issue("late", by: "ca", section: "leaf", ocsp: "http://127.0.0.1:\(caPort)")
        try pki.ocspIndex("root-index.txt", good: ["ca"], revoked: [])
        try pki.ocspIndex("ca-index.txt", good: ["leaf", "late"], revoked: ["revoked"])
        let rootResponder = try pki.ocspResponder(issuer: "root", index: "root-index.txt", port: rootPort)
        let caResponder = try pki.ocspResponder(issuer: "ca", index: "ca-index.txt", port: caPort)
        // SIGKILL: a child may inherit a blocked SIGTERM from the test process.
        func stop(_ process: Process) {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        defer {
            stop(rootResponder)
            stop(caResponder)
        }
        #expect(ExternalProgram.waitForPort(rootPort) && ExternalProgram.waitForPort(caPort))

        let now = Date().timeIntervalSince1970
        func token(_ signer: String) throws -> String {
            // signedDate is not what online checks judge the chain at: the current time is.
            try pki.token(
                payload: AppStoreChainFactory.transaction(signedDate: now - 86_400 * 400),
                chain: [signer, "ca", "root"], signer: signer)
        }
        let verifier = Verifier(
            policy: .appStore(bundleIDs: ["com.example.app"], trust: try pki.trust("root"), onlineChecks: true))
        func reason(_ token: String) -> String? { TokenFactory.reason(token, verifier: verifier) }
        #expect(reason(try token("leaf")) == nil)
        #expect(reason(try token("revoked")) == "certificate_revoked")
        // A certificate the responder has no record of is not trusted.
        #expect(reason(try token("unlisted")) == "untrusted_chain")
        // Without online checks, the chain is judged at signedDate (before these certificates were made).
        let offline = Verifier(policy: .appStore(bundleIDs: ["com.example.app"], trust: try pki.trust("root")))
        #expect(throws: VerificationError(.untrustedChain)) { try offline.verify(try token("leaf")) }

        // The command line, with the intermediate's responder still up.
        let root = pki.directory.appendingPathComponent("root.pem").path
        let cli = try CLIRunner.run(
            [
                "verify", "--profile", "app-store", "--bundle-id", "com.example.app", "--apple-root", root,
                "--online-checks",
            ],
            input: Data((try token("leaf") + "\n" + token("revoked") + "\n").utf8))
        #expect(cli.records.map { $0["reason"] as? String } == [nil, "certificate_revoked"], "\(cli.stderr)")

        // The intermediate's responder goes away: answers already had are kept; a new chain waits.
        stop(caResponder)
        #expect(reason(try token("leaf")) == nil)
        #expect(reason(try token("revoked")) == "certificate_revoked")
        #expect(reason(try token("late")) == "revocation_unavailable")
    }
}

/// OCSP answers are bounded too (OpenSSL's HTTP client, 1 MiB, no content coding asked or undone):
/// a responder that sends 50 MB, a head without end, or a DER length claiming 1 GiB leaves the
/// check `revocation_unavailable` and the process's peak memory within a few MiB of a good check's.
@Suite("App Store online checks: hostile OCSP responders", .serialized)
struct AppStoreHostileResponderTests {
    @Test(
        "50 MB, an endless head, a 1 GiB DER claim: revocation_unavailable, in bounded memory",
        arguments: ["big", "endless_head", "der_bomb"])
    func hostile(_ mode: String) throws {
        let pki = try AppStoreChainFactory()
        let rootPort = ExternalProgram.freePort()
        let junkPort = ExternalProgram.freePort()
        try pki.root("root")
        try pki.issue("ca", by: "root", section: "ca", ocsp: "http://127.0.0.1:\(rootPort)")
        try pki.issue("leaf", by: "ca", section: "leaf", ocsp: "http://127.0.0.1:\(junkPort)")
        try pki.ocspIndex("root-index.txt", good: ["ca"], revoked: [])
        let rootResponder = try pki.ocspResponder(issuer: "root", index: "root-index.txt", port: rootPort)
        let junk = Process()
        junk.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        junk.arguments = [
            "python3", CLIRunner.repositoryRoot.appendingPathComponent("Tests/Support/junk_responder.py").path,
            "\(junkPort)", mode,
        ]
        junk.standardOutput = FileHandle.nullDevice
        junk.standardError = FileHandle.nullDevice
        try junk.run()
        defer {
            for process in [rootResponder, junk] where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        #expect(ExternalProgram.waitForPort(rootPort) && ExternalProgram.waitForPort(junkPort))
        let now = Date().timeIntervalSince1970
        let token = try pki.token(
            payload: AppStoreChainFactory.transaction(signedDate: now - 86_400 * 400), chain: ["leaf", "ca", "root"],
            signer: "leaf")
        let root = pki.directory.appendingPathComponent("root.pem").path
        let flags = ["verify", "--profile", "app-store", "--bundle-id", "com.example.app", "--apple-root", root]
        let offline = try CLIRunner.runMeasured(flags, input: Data((token + "\n").utf8))
        let online = try CLIRunner.runMeasured(flags + ["--online-checks"], input: Data((token + "\n").utf8))
        #expect(
            online.outcome.records.first?["reason"] as? String == "revocation_unavailable",
            "\(online.outcome.stdoutText) \(online.outcome.stderr)")
        #expect(
            online.peakKiB > 0 && online.peakKiB <= offline.peakKiB + 8 * 1024,
            "peak \(online.peakKiB) KiB, offline \(offline.peakKiB) KiB")
    }
}
