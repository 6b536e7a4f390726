import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// ``DPoPReplayRecorder``: a verifier given a recorder of its own (a shared store) records every
/// proof it would accept there, and only those, instead of in a ``DPoPReplayCache``.
@Suite("DPoP replay recorders")
struct DPoPReplayRecorderTests {
    typealias F = DPoPProofFactory

    /// Answers each record with `answer`, remembering what it was asked.
    final class ScriptedRecorder: DPoPReplayRecorder {
        let answer: Mutex<ReplayRecord>
        let calls = Mutex<[(key: String, expiry: Double, now: Double)]>([])

        init(_ answer: ReplayRecord) { self.answer = Mutex(answer) }

        func recordProof(_ key: DPoPReplayKey, until expiry: Double, now: Double) -> ReplayRecord {
            calls.withLock { $0.append((key.hex, expiry, now)) }
            return answer.withLock { $0 }
        }
    }

    static func verifier(_ recorder: ScriptedRecorder, mode: DPoPPolicy.Mode = .required) -> Verifier {
        Verifier(
            keys: TokenFactory.keys,
            policy: VerificationPolicy.accessToken(issuer: F.issuer, audiences: [F.audience]).dpop(
                DPoPPolicy(mode: mode)
            )
            .leeway(0).clock { F.now },
            proofRecorder: recorder)
    }

    static func verify(_ verifier: Verifier, jti: String, htm: String = "GET") -> Result<
        VerifiedToken, VerificationError
    > {
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        let proof = F.proof(claims: F.claims(htm: htm, jti: jti, token: token))
        return Result { () throws(VerificationError) in
            try verifier.verify(token, dpop: DPoPRequest(proof: proof, method: "GET", uri: F.uri))
        }
    }

    @Test("the recorder replaces the cache: asked once per accepted proof, with a hashed key and the window's end")
    func recorded() throws {
        let recorder = ScriptedRecorder(.recorded)
        let verifier = Self.verifier(recorder)
        #expect(verifier.proofReplay == nil && verifier.proofRecorder != nil)
        #expect(try Self.verify(verifier, jti: "r-1").get().claims.subject == "user-5")
        // Refused before the replay check (htm): never recorded.
        #expect(Self.verify(verifier, jti: "r-2", htm: "POST").failure?.reason == .dpopMismatch)
        let calls = recorder.calls.withLock { $0 }
        #expect(calls.count == 1)
        #expect(calls[0].key.count == 64 && calls[0].key.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(calls[0].now == F.now && calls[0].expiry > F.now && calls[0].expiry <= F.now + 60)
        // Another jti, another key; the same jti, the same key.
        _ = Self.verify(verifier, jti: "r-3")
        _ = Self.verify(verifier, jti: "r-1")
        let keys = recorder.calls.withLock { $0.map(\.key) }
        #expect(keys[1] != keys[0] && keys[2] == keys[0])
    }

    @Test("seen and full are dpop_replayed, unavailable is replay_store_unavailable (fail-closed)")
    func refusals() {
        let recorder = ScriptedRecorder(.seen)
        let verifier = Self.verifier(recorder)
        let seen = Self.verify(verifier, jti: "s-1").failure
        #expect(
            seen?.reason == .dpopReplayed && seen?.detail == "the proof's jti was already accepted within its window")
        recorder.answer.withLock { $0 = .full }
        #expect(Self.verify(verifier, jti: "s-2").failure?.reason == .dpopReplayed)
        recorder.answer.withLock { $0 = .unavailable("redis at 127.0.0.1:1: Connection refused") }
        let down = Self.verify(verifier, jti: "s-3").failure
        #expect(down?.reason == .replayStoreUnavailable && down?.reason.rawValue == "replay_store_unavailable")
        #expect(down?.detail == "the proof's jti could not be recorded: redis at 127.0.0.1:1: Connection refused")
        #expect(ReasonEntry.entry(of: .replayStoreUnavailable)?.answer == .unavailable)
    }

    @Test("without a recorder the verifier keeps its own cache, which is its recorder; proofs off: neither")
    func defaults() {
        let own = F.verifier(.allowed)
        #expect(own.proofReplay != nil && (own.proofRecorder as? DPoPReplayCache) === own.proofReplay)
        let off = Self.verifier(ScriptedRecorder(.recorded), mode: .off)
        #expect(off.proofReplay == nil && off.proofRecorder == nil)
        let cache = DPoPReplayCache(capacity: 1)
        let key = Array("k".utf8).withUnsafeBytes { DPoPReplayKey(SHA256Digest(hashing: $0)) }
        #expect(cache.recordProof(key, until: 10, now: 0) == .recorded)
        #expect(cache.recordProof(key, until: 10, now: 5) == .seen)
        let other = Array("l".utf8).withUnsafeBytes { DPoPReplayKey(SHA256Digest(hashing: $0)) }
        #expect(cache.recordProof(other, until: 10, now: 5) == .full)
    }
}
