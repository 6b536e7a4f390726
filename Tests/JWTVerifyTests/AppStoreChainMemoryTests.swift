import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The memory of validated `x5c` chains (``AppStoreTrust``) changes no verdict: the real corpus,
/// each real token tampered, and the synthetic kinds get the same reason and detail with the
/// memory on and off, and only the trust with the memory keeps chains.
@Suite("App Store chain memory on and off")
struct AppStoreChainMemoryTests {
    static func verdicts(_ verifier: Verifier, _ tokens: [(String, Double?)]) -> [String] {
        tokens.map { token, time in
            do throws(VerificationError) {
                _ = try verifier.verify(token, at: time)
                return "valid"
            } catch { return error.reason.rawValue + ": " + error.detail }
        }
    }

    /// `token` with one payload character changed.
    static func tampered(_ token: String) -> String {
        var bytes = Array(token.utf8)
        let position = bytes.firstIndex(of: UInt8(ascii: "."))! + 40
        bytes[position] = bytes[position] == UInt8(ascii: "A") ? UInt8(ascii: "Q") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("the 43 real tokens and the 43 tampered: the same verdicts with the memory on and off")
    func realCorpus() throws {
        let vectors = AppStoreRealTokenTests.vectors
        guard !vectors.isEmpty else {
            print("skipped: ../shared/vectors/appstore is absent")
            return
        }
        let remembering = AppStoreTrust.appleRootCAG3
        let forgetting = remembering.withoutChainMemory()
        func verifier(_ trust: AppStoreTrust) -> Verifier {
            Verifier(
                policy: VerificationPolicy(
                    issuers: nil, audiences: nil, algorithms: [.es256], rules: .appStore(bundleIDs: nil, trust: trust)))
        }
        let tokens =
            vectors.map { ($0.token, AppStoreRealTokenTests.time($0)) }
            + vectors.map { (Self.tampered($0.token), AppStoreRealTokenTests.time($0)) }
        let on = Self.verdicts(verifier(remembering), tokens)
        let off = Self.verdicts(verifier(forgetting), tokens)
        #expect(on == off)
        #expect(on.prefix(43).allSatisfy { $0 == "valid" })
        #expect(on.suffix(43).allSatisfy { $0.hasPrefix("bad_signature") })
        #expect(forgetting.cachedChains == 0)
        #expect(remembering.cachedChains >= 1)
    }

    @Test("the synthetic kinds (nested, realtime, tampered, wrong app): the same verdicts with the memory on and off")
    func syntheticKinds() throws {
        let vectors = AppStoreSyntheticVectors.all
        try #require(vectors.count >= 10, "Vectors/appstore/tokens.jsonl is missing")
        let remembering = try AppStoreSyntheticVectors.trust()
        let forgetting = remembering.withoutChainMemory()
        func verifier(_ trust: AppStoreTrust) -> Verifier {
            Verifier(
                policy: .appStore(
                    bundleIDs: [AppStoreSyntheticVectors.bundleID], appAppleID: AppStoreSyntheticVectors.appAppleID,
                    trust: trust))
        }
        let tokens = vectors.map { ($0.token, Double?.none) }
        let on = Self.verdicts(verifier(remembering), tokens)
        let off = Self.verdicts(verifier(forgetting), tokens)
        #expect(on == off)
        #expect(zip(on, vectors).allSatisfy { verdict, vector in verdict.hasPrefix(vector.expect) })
        #expect(forgetting.cachedChains == 0)
    }
}
