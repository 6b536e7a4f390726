import Foundation
import JWTVerifyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A test CA for App Store online checks: a root and an intermediate `ca`, each with a real
/// `openssl ocsp` responder on a free loopback port, and leaves issued by `ca` naming its
/// responder. ``stop()`` (or ``stopIntermediate()``) ends the responders.
final class OCSPResponderPair: @unchecked Sendable {
    /// The certificates and their files.
    let pki: AppStoreChainFactory
    /// The root's responder, which answers for `ca`.
    let rootResponder: Process
    /// The intermediate's responder, which answers for the leaves.
    let caResponder: Process
    /// The responders' URLs, as the certificates name them.
    let rootURL: String
    let caURL: String

    /// The root, `ca` (known good to the root's responder) and `leaves` under `ca`, of which
    /// `ca`'s responder knows `good` as good and `revoked` as revoked (any other leaf is unknown
    /// to it); both responders listening.
    init(leaves: [String], good: [String], revoked: [String]) throws {
        pki = try AppStoreChainFactory()
        let rootPort = ExternalProgram.freePort()
        let caPort = ExternalProgram.freePort()
        rootURL = "http://127.0.0.1:\(rootPort)"
        caURL = "http://127.0.0.1:\(caPort)"
        try pki.root("root")
        try pki.issue("ca", by: "root", section: "ca", ocsp: rootURL)
        for leaf in leaves { try pki.issue(leaf, by: "ca", section: "leaf", ocsp: caURL) }
        try pki.ocspIndex("root-index.txt", good: ["ca"], revoked: [])
        try pki.ocspIndex("ca-index.txt", good: good, revoked: revoked)
        rootResponder = try pki.ocspResponder(issuer: "root", index: "root-index.txt", port: rootPort)
        caResponder = try pki.ocspResponder(issuer: "ca", index: "ca-index.txt", port: caPort)
        guard ExternalProgram.waitForPort(rootPort) && ExternalProgram.waitForPort(caPort) else {
            stop()
            throw CocoaError(.fileReadUnknown)
        }
    }

    /// A transaction signed by `signer`, with the chain `signer` ← `ca` ← `root`, signed `age`
    /// seconds ago.
    func token(_ signer: String, age: Double = 86_400) throws -> String {
        try pki.token(
            payload: AppStoreChainFactory.transaction(signedDate: Date().timeIntervalSince1970 - age),
            chain: [signer, "ca", "root"], signer: signer)
    }

    /// Ends the intermediate's responder: its answers already had are all there is.
    func stopIntermediate() { Self.stop(caResponder) }

    /// Ends both responders.
    func stop() {
        Self.stop(rootResponder)
        Self.stop(caResponder)
    }

    /// SIGKILL: a child may inherit a blocked SIGTERM from the test process.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
