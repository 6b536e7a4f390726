import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// App Store online checks against real OCSP responders: `openssl ocsp` serving a test CA's index
/// on loopback, one for the root's certificates and one for the intermediate's, reached through
/// `JWTVerifyRemote`'s `HTTPOCSPTransport` (the library makes and judges the messages).
@Suite("App Store online checks (OCSP)")
struct AppStoreOnlineCheckTests {
    @Test(
        "good chain: valid; revoked leaf: certificate_revoked; responder down: revocation_unavailable; answers are kept; --online-checks"
    )
    func ocsp() throws {
        let pair = try OCSPResponderPair(
            leaves: ["leaf", "revoked", "unlisted", "late"], good: ["leaf", "late"], revoked: ["revoked"])
        defer { pair.stop() }
        let pki = pair.pki
        // signedDate is not what online checks judge the chain at: the current time is.
        func token(_ signer: String) throws -> String { try pair.token(signer, age: 86_400 * 400) }
        let online = try pki.trust("root").checkingRevocation(through: HTTPOCSPTransport())
        let verifier = Verifier(policy: .appStore(bundleIDs: ["com.example.app"], trust: online, onlineChecks: true))
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
        pair.stopIntermediate()
        #expect(reason(try token("leaf")) == nil)
        #expect(reason(try token("revoked")) == "certificate_revoked")
        #expect(reason(try token("late")) == "revocation_unavailable")
    }

    /// Carries each exchange through `HTTPOCSPTransport` and keeps the answer by responder, or,
    /// replaying, answers from what was kept without asking anyone.
    final class RecordingTransport: OCSPTransport {
        let answers = Mutex<[String: [UInt8]]>([:])
        let replaying: RecordingTransport?

        init(replaying: RecordingTransport? = nil) { self.replaying = replaying }

        func exchange(_ request: [UInt8], with responder: String, timeout: Double) -> Result<
            [UInt8], OCSPTransportFailure
        > {
            if let replaying {
                guard let kept = replaying.answers.withLock({ $0[responder] }) else {
                    return .failure(OCSPTransportFailure("nothing kept for \(responder)"))
                }
                return .success(kept)
            }
            let answer = HTTPOCSPTransport().exchange(request, with: responder, timeout: timeout)
            if case .success(let body) = answer { answers.withLock { $0[responder] = body } }
            return answer
        }
    }

    @Test("a genuine, signed, current answer replayed to a later request is refused for its nonce")
    func replayedAnswer() throws {
        let pair = try OCSPResponderPair(leaves: ["leaf"], good: ["leaf"], revoked: [])
        defer { pair.stop() }
        let pki = pair.pki
        let token = try pair.token("leaf")
        func failure(_ transport: any OCSPTransport) throws -> VerificationError? {
            let trust = try pki.trust("root").checkingRevocation(through: transport)
            return TokenFactory.failure(
                token,
                verifier: Verifier(policy: .appStore(bundleIDs: ["com.example.app"], trust: trust, onlineChecks: true)))
        }
        let recorder = RecordingTransport()
        #expect(try failure(recorder) == nil)
        #expect(
            recorder.answers.withLock { Set($0.keys) } == [pair.caURL, pair.rootURL])
        // The same answers, to new requests (new nonces): refused, although signed and current.
        let replayed = try failure(RecordingTransport(replaying: recorder))
        #expect(replayed?.reason == .revocationUnavailable)
        #expect(
            replayed?.detail
                == "the x5c leaf's revocation status: the OCSP answer from \(pair.caURL): "
                + "the answer's nonce is not the request's (a replayed answer)")
    }
}

/// OCSP answers are bounded too, by `JWTVerifyRemote`'s libcurl transport (1 MiB decoded, a 64 KiB
/// head): a responder that sends 50 MB, a head without end, or a DER length claiming 1 GiB leaves
/// the check `revocation_unavailable`, stopped at the transport's cap, and the process's peak
/// memory within a few MiB of a good check's.
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
        let cap =
            mode == "endless_head"
            ? "response head is over the 65536-octet limit" : "body is over the 1048576-octet limit"
        let detail = online.outcome.records.first?["detail"] as? String ?? ""
        #expect(
            detail
                == "the x5c leaf's revocation status: the OCSP responder http://127.0.0.1:\(junkPort) "
                + "did not answer: \(cap)",
            "\(detail)")
        #expect(
            online.peakKiB > 0 && online.peakKiB <= offline.peakKiB + 8 * 1024,
            "peak \(online.peakKiB) KiB, offline \(offline.peakKiB) KiB")
    }
}
