import Foundation
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// A differential against joserfc (PyPI), an independent JOSE implementation, on generated cases:
/// the RFC 7638 thumbprints of generated keys, and whether generated and mutated DPoP proofs are
/// accepted (Tests/Differential/dpop_joserfc.py). Skipped, saying so, without python3 and joserfc.
@Suite("DPoP differential against joserfc")
struct DPoPDifferentialTests {
    typealias F = DPoPProofFactory

    static let script = JSONLinesScript("Differential/dpop_joserfc.py")

    /// Whether `python3 -c 'import joserfc'` succeeds.
    static let hasJoserfc: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import joserfc"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// The script's answers to `cases`, one per case.
    static func judge(_ cases: [[String: Any]]) throws -> [[String: Any]] {
        let (status, answers) = try script.run(cases)
        #expect(status == 0)
        return answers
    }

    /// Keys of every kind the library takes: RSA of three sizes, the three EC curves, Ed25519.
    static let signers: [TokenFactory.Signer] = {
        var signers: [TokenFactory.Signer] = []
        for (index, bits) in [2048, 3072, 2048].enumerated() {
            let algorithm: SignatureAlgorithm = [.rs256, .ps384, .rs512][index]
            signers.append(
                .init(kid: "r\(index)", algorithm: algorithm, key: try! EVPPrivateKey.generateRSA(bits: bits)))
        }
        for (curve, algorithm) in [("P-256", SignatureAlgorithm.es256), ("P-384", .es384), ("P-521", .es512)] {
            for copy in 0..<3 {
                signers.append(
                    .init(
                        kid: "\(curve)-\(copy)", algorithm: algorithm, key: try! EVPPrivateKey.generateEC(curve: curve))
                )
            }
        }
        for copy in 0..<3 {
            signers.append(.init(kid: "ed-\(copy)", algorithm: .edDSA, key: try! EVPPrivateKey.generateEd25519()))
        }
        return signers
    }()

    @Test("the RFC 7638 thumbprints of generated RSA, EC and Ed25519 keys agree with joserfc")
    func thumbprints() throws {
        guard Self.hasJoserfc else {
            print("DPoPDifferentialTests: skipped, python3 cannot import joserfc (pip install joserfc)")
            return
        }
        let jwks = Self.signers.map { F.jwk($0) }
        let answers = try Self.judge(
            jwks.map { ["jwk": try JSONSerialization.jsonObject(with: Data($0.utf8))] })
        #expect(answers.count == jwks.count)
        for (jwk, answer) in zip(jwks, answers) {
            let ours = try JWKSet(json: Array(#"{"keys":[\#(jwk)]}"#.utf8)).keys[0].thumbprint
            #expect(ours != nil && ours == answer["thumbprint"] as? String, "\(jwk)")
        }
    }

    /// One generated case: a bound token, a proof (maybe mutated) and the request.
    struct Case {
        let token: String
        let jkt: String
        let proof: String
        let method: String
        let uri: String
        /// Which mutation (0: none).
        let kind: Int
    }

    /// Valid proofs for every key, and for each a mutation of one kind, chosen by a seeded generator.
    static func cases() -> [Case] {
        var random = SplitMix(state: 9449)
        var cases: [Case] = []
        for (index, signer) in signers.enumerated() {
            let jkt = F.thumbprint(signer)
            let token = F.accessToken(boundTo: jkt, jti: "at-\(index)")
            for variant in 0..<10 {
                let kind = variant == 0 ? 0 : Int(random.next() % 9)
                var method = "GET"
                var uri = F.uri
                var header = F.header(signer)
                var claims = F.claims(jti: "p-\(index)-\(variant)", token: token)
                var boundTo = jkt
                switch kind {
                case 1: method = "POST"
                case 2: uri = "https://api.example.com/other"
                case 3: header = F.header(signer, typ: "jwt")
                case 4: claims = F.claims(iat: F.now - 61, jti: "old-\(index)-\(variant)", token: token)
                case 5: claims = F.claims(jti: "na-\(index)-\(variant)", token: token + "x")
                case 6: boundTo = F.thumbprint(signers[(index + 1) % signers.count])
                case 7: header = header.replacingOccurrences(of: #""jwk":{"#, with: #""jwk":{"d":"AAAA","#)
                default: break
                }
                var proof = F.proof(signer, header: header, claims: claims)
                if kind == 8 {
                    // One signature octet changed: the last character of the signature segment.
                    let last = proof.removeLast()
                    proof.append(last == "A" ? "Q" : "A")
                }
                let bound = boundTo == jkt ? token : F.accessToken(boundTo: boundTo, jti: "at-\(index)")
                let fixedClaims = kind == 6 ? F.claims(jti: "o-\(index)-\(variant)", token: bound) : nil
                if let fixedClaims { proof = F.proof(signer, header: header, claims: fixedClaims) }
                cases.append(Case(token: bound, jkt: boundTo, proof: proof, method: method, uri: uri, kind: kind))
            }
        }
        return cases
    }

    @Test("generated and mutated proofs: accepted or refused alike by the verifier and by joserfc")
    func proofs() throws {
        guard Self.hasJoserfc else {
            print("DPoPDifferentialTests: skipped, python3 cannot import joserfc (pip install joserfc)")
            return
        }
        let cases = Self.cases()
        let answers = try Self.judge(
            cases.map {
                [
                    "proof": $0.proof, "method": $0.method, "uri": $0.uri, "token": $0.token, "jkt": $0.jkt,
                    "now": F.now, "window": 60, "leeway": 0,
                ]
            })
        #expect(answers.count == cases.count)
        let verifier = F.verifier(DPoPPolicy(mode: .allowed, algorithms: Set(SignatureAlgorithm.all)))
        var accepted = 0
        for (item, answer) in zip(cases, answers) {
            let ours: Bool
            do {
                _ = try verifier.verify(
                    item.token, dpop: DPoPRequest(proof: item.proof, method: item.method, uri: item.uri))
                ours = true
            } catch {
                ours = false
            }
            if ours { accepted += 1 }
            #expect(ours == answer["accepted"] as? Bool, "kind \(item.kind): \(answer["why"] ?? "") \(item.proof)")
        }
        // Both sides saw acceptances and refusals.
        #expect(accepted >= Self.signers.count && accepted < cases.count)
    }
}
