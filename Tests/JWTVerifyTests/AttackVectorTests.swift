import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// Every case of `../shared/vectors/attacks/cases.jsonl` must give the expected verdict and the
/// exact expected reason.
@Suite("Attack and edge corpus", .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
struct AttackVectorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let id: String
        let token: String
        let jwksFile: String?
        let inlineJWKS: Data?
        let issuer: String
        let audiences: [String]
        let nonce: String?
        let leeway: Double
        let now: Double
        let algorithms: [String]
        let maxTokenBytes: Int
        let expectAccept: Bool
        let reason: String?
        var testDescription: String { id }
    }

    static let cases: [Case] = {
        guard SharedVectors.available, let data = try? SharedVectors.data("attacks/cases.jsonl") else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line -> Case? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let options = object["options"] as? [String: Any]
            else { return nil }
            let audience = options["audience"]
            return Case(
                id: object["id"] as? String ?? "?",
                token: object["token"] as? String ?? "",
                jwksFile: object["jwks_ref"] as? String,
                inlineJWKS: (object["jwks"]).flatMap { try? JSONSerialization.data(withJSONObject: $0) },
                issuer: options["issuer"] as? String ?? "",
                audiences: (audience as? [String]) ?? [(audience as? String) ?? ""],
                nonce: options["nonce"] as? String,
                leeway: (options["leeway"] as? NSNumber)?.doubleValue ?? 60,
                now: (options["now"] as? NSNumber)?.doubleValue ?? 0,
                algorithms: options["algorithms"] as? [String] ?? [],
                maxTokenBytes: (options["max_token_bytes"] as? NSNumber)?.intValue ?? 65536,
                expectAccept: object["expect"] as? String == "accept",
                reason: object["reason"] as? String)
        }
    }()

    @Test("the corpus has all 183 cases")
    func corpusIsComplete() {
        #expect(Self.cases.count == 183)
        #expect(Self.cases.filter(\.expectAccept).count == 34)
    }

    /// The cases whose header says ES256.
    static let es256Cases = cases.filter { vector in
        guard let header = vector.token.split(separator: ".", omittingEmptySubsequences: false).first,
            let json = Base64URL.decode(header.utf8),
            let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
        else { return false }
        return object["alg"] as? String == "ES256"
    }

    @Test("the ES256 cases, with every P-256 key's fixed-base table built: alone and through the batch signature stage")
    func fixedBase() throws {
        #expect(Self.es256Cases.count == 47)
        var wrong: [String] = []
        for vector in Self.es256Cases {
            let verifier = try Self.verifier(for: vector)
            for key in verifier.keys.keys { _ = key.key?.buildFixedBaseNow() }
            #expect(verifier.keys.keys.contains { $0.key?.hasFixedBaseTable == true } || vector.inlineJWKS != nil)
            let token = Array(vector.token.utf8)
            let nonce = vector.nonce
            let alone = token.withUnsafeBytes { verifier.evaluate($0, nonce: nonce, at: .clock) }
            var batch = TokenBatch()
            batch.append(token, nonce: nonce.map { Array($0.utf8) })
            let batched = verifier.verify(batch)[0]
            for (how, result) in [("alone", alone), ("batched", batched)] {
                let reason: String? = if case .failure(let error) = result { error.reason.rawValue } else { nil }
                if vector.expectAccept ? reason != nil : reason != vector.reason {
                    wrong.append("\(vector.id) \(how): \(reason ?? "accepted"), expected \(vector.reason ?? "accept")")
                }
            }
        }
        print("attack corpus through the fixed-base path: \(Self.es256Cases.count) ES256 cases, \(wrong.count) wrong")
        #expect(wrong.isEmpty, "\(wrong)")
    }

    static func verifier(for vector: Case) throws -> Verifier {
        let jwks: JWKSet
        if let inline = vector.inlineJWKS {
            jwks = try JWKSet(json: [UInt8](inline))
        } else {
            jwks = try JWKSet(
                contentsOfFile: SharedVectors.directory.appendingPathComponent(
                    "attacks/\(vector.jwksFile ?? "jwks.json")"
                ).path)
        }
        return Verifier(
            keys: jwks, issuer: vector.issuer, audiences: vector.audiences,
            algorithms: Set(vector.algorithms.compactMap(SignatureAlgorithm.init(name:))),
            leeway: vector.leeway, maxTokenBytes: vector.maxTokenBytes, clock: { vector.now })
    }

    @Test("exact verdict and reason", arguments: cases)
    func verdictAndReason(_ vector: Case) throws {
        let jwks: JWKSet
        if let inline = vector.inlineJWKS {
            jwks = try JWKSet(json: [UInt8](inline))
        } else {
            jwks = try JWKSet(
                contentsOfFile: SharedVectors.directory.appendingPathComponent(
                    "attacks/\(vector.jwksFile ?? "jwks.json")"
                ).path)
        }
        let algorithms = Set(vector.algorithms.compactMap(SignatureAlgorithm.init(name:)))
        #expect(algorithms.count == vector.algorithms.count)
        let verifier = Verifier(
            keys: jwks, issuer: vector.issuer, audiences: vector.audiences, algorithms: algorithms,
            leeway: vector.leeway, maxTokenBytes: vector.maxTokenBytes, clock: { vector.now })
        do {
            let verified = try verifier.verify(vector.token, nonce: vector.nonce)
            #expect(vector.expectAccept, "accepted, expected \(vector.reason ?? "?")")
            #expect(verified.claims.expiresAt != nil)
        } catch {
            #expect(!vector.expectAccept, "rejected as \(error), expected accept")
            #expect(error.reason.rawValue == vector.reason, "\(error)")
        }
    }
}
