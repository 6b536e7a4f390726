import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The signature stage's plan: the one engine choice a key makes for a signature (the same for
/// one token and for a batch), and how the plan groups a chunk's tokens by the call that checks
/// them. Runs with the multi-buffer engine loaded and without it (`JWTVERIFY_CRYPTO_MB=off`).
@Suite("signature plan")
struct SignaturePlanTests {
    /// The engine's case, for expectations.
    static func name(_ engine: SignatureEngine) -> String {
        switch engine {
        case .refused: "refused"
        case .evp: "evp"
        case .rsaChain: "rsaChain"
        case .fixedBaseP256: "fixedBaseP256"
        }
    }

    static func key(_ algorithm: SignatureAlgorithm, _ privateKey: EVPPrivateKey) throws -> EVPPublicKey {
        let signer = TokenFactory.Signer(kid: "k", algorithm: algorithm, key: privateKey)
        let keys = try JWKSet(json: Array("{\"keys\":[\(signer.jwkJSON)]}".utf8))
        return try #require(keys.keys.first?.key)
    }

    @Test("one choice: a wrong length is refused; RS256 takes the chain, PS256 EVP, ES256 the table once built")
    func choice() throws {
        let rsa = try Self.key(.rs256, try EVPPrivateKey.generateRSA(bits: 2048, exponent: [1, 0, 1]))
        #expect(Self.name(rsa.signatureEngine(for: .rs256, signatureLength: 255)) == "refused")
        #expect(Self.name(rsa.signatureEngine(for: .ps256, signatureLength: 257)) == "refused")
        #expect(Self.name(rsa.signatureEngine(for: .ps256, signatureLength: 256)) == "evp")
        #expect(rsa.rsaChain != nil)
        let chained = rsa.signatureEngine(for: .rs256, signatureLength: 256)
        #expect(Self.name(chained) == "rsaChain")
        #expect(chained.batchCall == (MultiBufferEngine.isLoaded ? .multiBuffer(bits: 2048) : .alone))

        let ec = try Self.key(.es256, try EVPPrivateKey.generateEC(curve: "P-256"))
        #expect(Self.name(ec.signatureEngine(for: .es256, signatureLength: 63)) == "refused")
        #expect(Self.name(ec.signatureEngine(for: .es256, signatureLength: 64)) == "evp")
        #expect(ec.buildFixedBaseNow() != nil)
        let table = ec.signatureEngine(for: .es256, signatureLength: 64)
        #expect(Self.name(table) == "fixedBaseP256")
        #expect(table.batchCall == .fixedBaseP256)
        #expect(SignatureEngine.refused.batchCall == .alone)
        // The engines are unretained: the keys own what they point to.
        withExtendedLifetime((rsa, ec)) {}
    }

    @Test("grouping: tables together; lanes by modulus size eight to a call; a rest under three lanes alone")
    func grouping() throws {
        let rsa2048 = try Self.key(.rs256, try EVPPrivateKey.generateRSA(bits: 2048, exponent: [1, 0, 1]))
        let rsa3072 = try Self.key(.rs256, try EVPPrivateKey.generateRSA(bits: 3072, exponent: [1, 0, 1]))
        let ec = try Self.key(.es256, try EVPPrivateKey.generateEC(curve: "P-256"))
        _ = (rsa2048.rsaChain, rsa3072.rsaChain, ec.buildFixedBaseNow())
        let lane2048 = rsa2048.signatureEngine(for: .rs256, signatureLength: 256)
        let lane3072 = rsa3072.signatureEngine(for: .rs256, signatureLength: 384)
        let table = ec.signatureEngine(for: .es256, signatureLength: 64)
        // Positions 0…9: 2048-bit; 10…12: 3072-bit; 13, 14: ES256 with the table; 15: refused.
        var plan = SignaturePlan()
        for position in 0..<10 { plan.add(position, engine: lane2048) }
        for position in 10..<13 { plan.add(position, engine: lane3072) }
        plan.add(13, engine: table)
        plan.add(14, engine: table)
        plan.add(15, engine: .refused)
        plan.seal()
        var calls: [String] = []
        plan.forEachLaneCall { bits, members in calls.append("\(bits):\(members.map(\.position))") }
        #expect(plan.fixedBase.map(\.position) == [13, 14])
        if MultiBufferEngine.isLoaded {
            #expect(calls == ["2048:\(Array(0..<8))", "3072:[10, 11, 12]"])
            #expect(plan.alone.map(\.position).sorted() == [8, 9, 15])
        } else {
            #expect(calls.isEmpty)
            #expect(plan.alone.map(\.position).sorted() == Array(0..<13) + [15])
        }
        // Emptied for the next chunk.
        plan.removeAll()
        plan.seal()
        var none = 0
        plan.forEachLaneCall { _, _ in none += 1 }
        #expect(plan.alone.isEmpty && plan.fixedBase.isEmpty && none == 0)
        withExtendedLifetime((rsa2048, rsa3072, ec)) {}
    }
}
