import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// The project's own Apple-shaped samples (`Vectors/samples`, made by `Vectors/generate.py`):
/// each line names the verdict it must get at the fixed evaluation time.
@Suite("project sample vectors")
struct SampleVectorTests {
    static let evaluationTime = 1_767_225_600.0  // 2026-01-01T00:00:00Z, as in generate.py

    struct Sample: Sendable, CustomTestStringConvertible {
        let id: String
        let token: String
        let nonce: String?
        let expect: String
        /// The verdict under `.appleIdentityToken` (RS256 only).
        let expectApple: String
        var testDescription: String { id }
    }

    static let samples: [Sample] = {
        let url = SharedVectors.projectVectors.appendingPathComponent("samples/apple-identity-tokens.jsonl")
        guard let data = try? Data(contentsOf: url) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            guard let row = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
            return Sample(
                id: row["id"] as? String ?? "", token: row["token"] as? String ?? "", nonce: row["nonce"] as? String,
                expect: row["expect"] as? String ?? "", expectApple: row["expect_apple"] as? String ?? "")
        }
    }()

    static let verifier: Verifier = {
        let keys = try! JWKSet(contentsOfFile: SharedVectors.projectVectors.appendingPathComponent("jwks.json").path)
        return Verifier(
            keys: keys, issuer: "https://appleid.apple.com", audiences: ["com.example.app"], clock: { evaluationTime })
    }()

    @Test("the sample file covers every generic reason code")
    func coverage() {
        #expect(Self.samples.count == 27)
        let reasons = Set(Self.samples.map(\.expect))
        for reason in VerificationError.Reason.generic { #expect(reasons.contains(reason.rawValue), "\(reason)") }
    }

    @Test("each sample gets its verdict", arguments: samples)
    func verdict(_ sample: Sample) {
        do {
            _ = try Self.verifier.verify(sample.token, nonce: sample.nonce)
            #expect(sample.expect == "valid")
        } catch {
            #expect(error.reason.rawValue == sample.expect, "\(error)")
        }
    }

    static let appleVerifier: Verifier = {
        let keys = try! JWKSet(contentsOfFile: SharedVectors.projectVectors.appendingPathComponent("jwks.json").path)
        return Verifier(
            keys: keys, policy: .appleIdentityToken(audiences: ["com.example.app"]).clock { evaluationTime })
    }()

    @Test("each sample gets its expect_apple verdict under the Apple preset; only the ES256 ones differ")
    func appleVerdicts() {
        var differing: [String] = []
        for sample in Self.samples {
            if sample.expectApple != sample.expect { differing.append(sample.id) }
            do {
                _ = try Self.appleVerifier.verify(sample.token, nonce: sample.nonce)
                #expect(sample.expectApple == "valid", "\(sample.id)")
            } catch {
                #expect(error.reason.rawValue == sample.expectApple, "\(sample.id): \(error)")
            }
        }
        #expect(differing == ["valid-es256", "valid-no-nonce-check", "es256-header-on-rsa-key"])
    }
}
