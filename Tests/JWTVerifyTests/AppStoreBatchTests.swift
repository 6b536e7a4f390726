import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// A batch verifies the signed data nested in its App Store notifications as one batch of its own
/// (their signatures checked together), and each thread remembers `x5c` headers with their chain:
/// neither changes a verdict, a detail or the order tokens are handed back in.
@Suite("App Store batches: nested signed data together, x5c headers remembered")
struct AppStoreBatchTests {
    static func verdict(_ result: Result<VerifiedToken, VerificationError>) -> String {
        switch result {
        case .success(let token):
            let claims = token.provider.claims(as: AppStoreClaims.self)
            let nested = [claims?.transaction != nil, claims?.renewalInfo != nil, claims?.appTransaction != nil]
            return "valid \(nested)"
        case .failure(let error): return error.reason.rawValue + ": " + error.detail
        }
    }

    /// Each token alone, then the whole list as batches (over two chunks, so notifications are
    /// pending in several chunks): the same verdicts, in order.
    static func expectSameVerdicts(_ verifier: Verifier, _ tokens: [String], at time: Double? = nil) {
        let alone = tokens.map { token in
            Self.verdict(Result { () throws(VerificationError) in try verifier.verify(token, at: time) })
        }
        var batch = TokenBatch()
        for token in tokens { batch.append(token) }
        let batched = verifier.verify(batch, at: time).map(Self.verdict)
        #expect(batched == alone)
        // And again: the second pass meets remembered headers (and, with a cache, cached tokens).
        #expect(verifier.verify(batch, at: time).map(Self.verdict) == alone)
    }

    static func syntheticVerifier(_ trust: AppStoreTrust, cache: Bool = false) -> Verifier {
        let policy = VerificationPolicy.appStore(
            bundleIDs: [AppStoreSyntheticVectors.bundleID], appAppleID: AppStoreSyntheticVectors.appAppleID,
            trust: trust)
        return cache
            ? Verifier(keys: JWKSet(keys: []), policy: policy, cache: .init(capacity: 64)) : Verifier(policy: policy)
    }

    @Test("the synthetic kinds, nested ones tampered, foreign, outside the chain or of the wrong kind, interleaved")
    func synthetic() throws {
        let vectors = AppStoreSyntheticVectors.all
        try #require(vectors.count >= 10, "Vectors/appstore/tokens.jsonl is missing")
        let trust = try AppStoreSyntheticVectors.trust()
        // 17 lines, 9 times over, in an order that differs from pass to pass: 153 tokens, two chunks.
        var tokens: [String] = []
        for round in 0..<9 {
            for index in vectors.indices { tokens.append(vectors[(index * (round + 2)) % vectors.count].token) }
        }
        #expect(tokens.count > Verifier.stageSize)
        for verifier in [
            Self.syntheticVerifier(trust), Self.syntheticVerifier(trust, cache: true),
            Self.syntheticVerifier(trust.withoutChainMemory()),
        ] {
            Self.expectSameVerdicts(verifier, tokens)
        }
        // The verdicts are the lines' own: the nested failures are the notification's.
        let verdicts = Self.syntheticVerifier(trust).verify(
            {
                var batch = TokenBatch()
                for vector in vectors { batch.append(vector.token) }
                return batch
            }()
        ).map(Self.verdict)
        for (verdict, vector) in zip(verdicts, vectors) {
            #expect(verdict.hasPrefix(vector.expect), "\(vector.id): \(verdict)")
        }
        #expect(verdicts[1].hasPrefix("bad_signature: appData.signedAppTransactionInfo: "))
        #expect(verdicts[0] == "valid [false, false, true]")
    }

    @Test("the real tokens and their tampered copies, each at its own signedDate: the same verdicts in a batch")
    func real() throws {
        let vectors = AppStoreRealTokenTests.vectors.filter { AppStoreRealTokenTests.time($0) == nil }
        guard !vectors.isEmpty else {
            print("skipped: ../shared/vectors/appstore is absent")
            return
        }
        let verifier = Verifier(
            policy: VerificationPolicy(
                issuers: nil, audiences: nil, algorithms: [.es256], rules: .appStore(bundleIDs: nil))
        )
        var tokens: [String] = []
        for vector in vectors {
            tokens.append(vector.token)
            tokens.append(AppStoreChainMemoryTests.tampered(vector.token))
        }
        Self.expectSameVerdicts(verifier, tokens + tokens.reversed())
        var batch = TokenBatch()
        for token in tokens { batch.append(token) }
        let verdicts = verifier.verify(batch).map(Self.verdict)
        #expect(stride(from: 0, to: verdicts.count, by: 2).allSatisfy { verdicts[$0].hasPrefix("valid") })
        #expect(stride(from: 1, to: verdicts.count, by: 2).allSatisfy { verdicts[$0].hasPrefix("bad_signature") })
        // Notifications with nested data come back with it verified.
        #expect(verdicts.contains("valid [true, true, false]"))
    }

    @Test("a remembered x5c header is its verifier's: another verifier with other roots still refuses the chain")
    func rememberedHeaderPerVerifier() throws {
        let valid = AppStoreSyntheticVectors.token("realtime-request")
        let ours = Self.syntheticVerifier(try AppStoreSyntheticVectors.trust())
        let apples = Verifier(policy: .appStore(bundleIDs: [AppStoreSyntheticVectors.bundleID]))
        for _ in 0..<3 {
            #expect(Self.verdict(Result { () throws(VerificationError) in try ours.verify(valid) }).hasPrefix("valid"))
            #expect(
                Self.verdict(Result { () throws(VerificationError) in try apples.verify(valid) })
                    .hasPrefix("untrusted_chain"))
        }
        // Remembered or not, the signature is still checked.
        let tampered = AppStoreSyntheticVectors.token("realtime-request-tampered")
        #expect(
            Self.verdict(Result { () throws(VerificationError) in try ours.verify(tampered) })
                .hasPrefix("bad_signature"))
    }
}
