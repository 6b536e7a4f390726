import Foundation
import JWTVerifyTestSupport
import JWTVerifyTooling
import Testing

@testable import JWTVerify

/// `jwtverify bench --app-store --tokens`: App Store signed data read from a file, whose raw limit
/// checks every signature each token carries (a notification's nested transaction, renewal info
/// and AppTransaction too) with its `x5c` leaf's key, as full verification does.
@Suite("bench on App Store tokens from a file")
struct AppStoreBenchmarkTests {
    /// How many compact JWS a token carries: itself, and each of its notification's nested fields.
    static func signatures(in token: String) -> Int {
        let segment = String(token.split(separator: ".")[1])
        let padded =
            segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            + String(repeating: "=", count: (4 - segment.count % 4) % 4)
        guard let payload = Data(base64Encoded: padded),
            let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { return 1 }
        let data = object["data"] as? [String: Any]
        let appData = object["appData"] as? [String: Any]
        return 1
            + [data?["signedTransactionInfo"], data?["signedRenewalInfo"], appData?["signedAppTransactionInfo"]]
            .filter { $0 is String }.count
    }

    @Test("every signature a token carries is timed, nested ones too; a token whose chain is foreign is left out")
    func carriedSignatures() throws {
        let valid = AppStoreSyntheticVectors.all.filter { $0.expect == "valid" }
        try #require(valid.count >= 8, "Vectors/appstore/tokens.jsonl is missing")
        let tokens = valid.map { Array($0.token.utf8) }
        let corpus = BenchmarkCorpus.appStore(
            tokens: tokens, bundleIDs: [AppStoreSyntheticVectors.bundleID],
            appAppleID: AppStoreSyntheticVectors.appAppleID,
            trust: try AppStoreSyntheticVectors.trust())
        let expected = valid.map { Self.signatures(in: $0.token) }.reduce(0, +)
        #expect(expected > valid.count, "some synthetic notifications carry nested signed data")
        #expect(corpus.carriedSignatures?.map(\.count).reduce(0, +) == expected)
        let raw = RawVerificationLimit(corpus: corpus)
        #expect(raw.count == valid.count)
        #expect(raw.runOnce() == expected)
        // Slices of tokens, as a round interleaves them, cover every signature exactly once.
        #expect(raw.run(0..<3) + raw.run(3..<valid.count) == expected)
        #expect(raw.run(2..<2) == 0)
        // Under Apple's root the test chain is foreign: no token can be timed.
        let foreign = BenchmarkCorpus.appStore(tokens: tokens, bundleIDs: ["com.example.app"], trust: .appleRootCAG3)
        #expect(RawVerificationLimit(corpus: foreign).count == 0)
        // Full verification accepts them all, with the same policy.
        #expect(corpus.rejections(corpus.verifier).isEmpty)
        // A tampered nested signature is timed, and fails, as full verification fails it.
        let tampered = Array(AppStoreSyntheticVectors.token("rescind-consent-nested-tampered").utf8)
        let withTampered = BenchmarkCorpus.appStore(
            tokens: [tampered], bundleIDs: [AppStoreSyntheticVectors.bundleID],
            trust: try AppStoreSyntheticVectors.trust())
        let tamperedRaw = RawVerificationLimit(corpus: withTampered)
        #expect(tamperedRaw.count == 1 && tamperedRaw.runOnce() == 1)
        #expect(withTampered.rejections(withTampered.verifier).map(\.reason) == ["bad_signature"])
    }

    @Test("the real tokens: each one's signatures, nested ones too, under Apple's root")
    func realTokens() throws {
        guard let data = try? SharedVectors.data("appstore/tokens.jsonl") else {
            print("skipped: ../shared/vectors/appstore is absent")
            return
        }
        let tokens: [String] = data.split(separator: 0x0A).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["token"] as? String
        }
        #expect(tokens.count == 43)
        let corpus = BenchmarkCorpus.appStore(
            tokens: tokens.map { Array($0.utf8) }, bundleIDs: ["any"], trust: .appleRootCAG3)
        let raw = RawVerificationLimit(corpus: corpus)
        let expected = tokens.map(Self.signatures(in:)).reduce(0, +)
        #expect(raw.count == 43)
        #expect(raw.runOnce() == expected)
        #expect(expected > 43)
    }
}
