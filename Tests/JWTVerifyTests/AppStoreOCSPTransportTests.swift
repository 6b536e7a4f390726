import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Synchronization
import Testing

/// App Store online checks through an injected ``OCSPTransport``, in process: JWTVerify makes the
/// requests and judges the answers; a transport only carries them, and without one no check passes.
@Suite("App Store online checks: the OCSP transport seam")
struct AppStoreOCSPTransportTests {
    /// A root, an intermediate and two leaves: one naming an OCSP responder, one naming none.
    static let pki: AppStoreChainFactory = {
        let pki = try! AppStoreChainFactory()
        try! pki.root("root")
        try! pki.issue("ca", by: "root", section: "ca", ocsp: "http://ocsp.invalid/root")
        try! pki.issue("leaf", by: "ca", section: "leaf", ocsp: "http://ocsp.invalid/ca")
        try! pki.issue("silent", by: "ca", section: "leaf")
        return pki
    }()

    /// Answers every exchange with `answer`, keeping each request and responder it was given.
    final class ScriptedTransport: OCSPTransport {
        let answer: Result<[UInt8], OCSPTransportFailure>
        let asked = Mutex<[(request: [UInt8], responder: String, timeout: Double)]>([])

        init(_ answer: Result<[UInt8], OCSPTransportFailure>) { self.answer = answer }

        func exchange(_ request: [UInt8], with responder: String, timeout: Double) -> Result<
            [UInt8], OCSPTransportFailure
        > {
            asked.withLock { $0.append((request, responder, timeout)) }
            return answer
        }
    }

    static func token(_ signer: String) throws -> String {
        try pki.token(
            payload: AppStoreChainFactory.transaction(signedDate: Date().timeIntervalSince1970),
            chain: [signer, "ca", "root"], signer: signer)
    }

    /// The error verifying `token` with online checks under `trust` ends with (`nil`: valid).
    static func failure(_ token: String, trust: AppStoreTrust) -> VerificationError? {
        TokenFactory.failure(
            token,
            verifier: Verifier(policy: .appStore(bundleIDs: ["com.example.app"], trust: trust, onlineChecks: true)))
    }

    @Test("online checks without a transport: revocation_unavailable, never a pass; offline the token is valid")
    func noTransport() throws {
        let token = try Self.token("leaf")
        let trust = try Self.pki.trust("root")
        let failure = Self.failure(token, trust: trust)
        #expect(failure?.reason == .revocationUnavailable)
        #expect(
            failure?.detail.contains("online checks have no OCSP transport") == true, "\(String(describing: failure))")
        // Asked again: still refused (no answer is cached for a missing transport).
        #expect(Self.failure(token, trust: trust)?.reason == .revocationUnavailable)
        let offline = Verifier(policy: .appStore(bundleIDs: ["com.example.app"], trust: trust))
        #expect(throws: Never.self) { try offline.verify(token) }
    }

    @Test("the transport is handed a DER OCSP request with a fresh nonce, to the leaf's responder, within 5 s")
    func requests() throws {
        let token = try Self.token("leaf")
        let transport = ScriptedTransport(.success(Array("not DER".utf8)))
        let trust = try Self.pki.trust("root").checkingRevocation(through: transport)
        let failure = Self.failure(token, trust: trust)
        #expect(failure?.reason == .revocationUnavailable)
        #expect(
            failure?.detail
                == "the x5c leaf's revocation status: the OCSP answer from http://ocsp.invalid/ca: "
                + "the answer is not one DER OCSP response")
        // Unavailable is not kept: the next token asks again, with another nonce.
        #expect(Self.failure(token, trust: trust)?.reason == .revocationUnavailable)
        let asked = transport.asked.withLock { $0 }
        #expect(asked.map(\.responder) == ["http://ocsp.invalid/ca", "http://ocsp.invalid/ca"])
        #expect(asked.map(\.timeout) == [5, 5])
        // Each request is one DER SEQUENCE filling its length (short or two-octet long form).
        for request in asked.map(\.request) {
            #expect(request.first == 0x30 && request.count > 60 && request.count < 300)
            let length = request[1] < 0x80 ? Int(request[1]) + 2 : Int(request[2]) + 3
            #expect(length == request.count)
        }
        #expect(asked[0].request != asked[1].request, "two requests for one certificate carry different nonces")
    }

    @Test("a transport failure is revocation_unavailable with its words; a certificate naming no responder too")
    func failures() throws {
        let transport = ScriptedTransport(.failure(OCSPTransportFailure("timed out after 5.0 s")))
        let trust = try Self.pki.trust("root").checkingRevocation(through: transport)
        let failure = Self.failure(try Self.token("leaf"), trust: trust)
        #expect(failure?.reason == .revocationUnavailable)
        #expect(
            failure?.detail
                == "the x5c leaf's revocation status: the OCSP responder http://ocsp.invalid/ca did not answer: "
                + "timed out after 5.0 s")
        let silent = ScriptedTransport(.success([]))
        let quiet = Self.failure(
            try Self.token("silent"), trust: try Self.pki.trust("root").checkingRevocation(through: silent))
        #expect(quiet?.reason == .revocationUnavailable)
        #expect(quiet?.detail == "the x5c leaf's revocation status: the certificate names no OCSP responder")
        #expect(silent.asked.withLock { $0.isEmpty })
    }
}
