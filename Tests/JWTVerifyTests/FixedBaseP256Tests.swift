import Foundation
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// The fixed-base ES256 path (`FixedBaseP256Key`, the batch signature stage): the same
/// verdict as OpenSSL's `EVP_PKEY_verify` on every vector, alone and in batches, and a bad entry in
/// a batch never changes another's verdict.
@Suite("Fixed-base P-256")
struct FixedBaseP256Tests {
    static let n = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
    static let p = [UInt8](hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")

    @Test("the pipeline's chunks fit the fixed-base batch")
    func stageFitsTheBatch() {
        #expect(Verifier.stageSize <= FixedBaseP256Key.batchLimit)
    }

    @Test("the build has the fast path")
    func available() {
        #expect(FixedBaseP256Key.isAvailable)
    }

    @Test(
        "Wycheproof P-256 P1363: every valid verifies and every invalid fails, alone, in one batch per key and in mixed batches",
        .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
    func wycheproof() throws {
        let document = try SharedVectors.json("wycheproof/ecdsa_secp256r1_sha256_p1363_test.json")
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        struct Case {
            let id: Int
            let expected: Bool
            let digest: [UInt8]
            let signature: [UInt8]
            let table: FixedBaseP256Key?
            let key: EVPPublicKey
        }
        var cases: [Case] = []
        var wrong: [String] = []
        for group in groups {
            let jwk = try WycheproofTests.jwk(for: group, algorithm: .es256)
            let key = try #require(jwk.key)
            let point = try #require(key.octets("pub"))
            let table = FixedBaseP256Key(uncompressedPoint: point)
            #expect(table != nil, "no table for \(point)")
            var groupCases: [Case] = []
            for test in group["tests"] as? [[String: Any]] ?? [] {
                let id = test["tcId"] as? Int ?? -1
                let result = test["result"] as? String ?? ""
                #expect(result == "valid" || result == "invalid", "tcId \(id): \(result)")
                let digest = MessageDigest.sha256.hash([UInt8](hex: test["msg"] as? String ?? ""))
                let signature = [UInt8](hex: test["sig"] as? String ?? "")
                groupCases.append(
                    Case(
                        id: id, expected: result == "valid", digest: digest, signature: signature, table: table,
                        key: key))
            }
            // Alone, and with OpenSSL's own verify as the reference.
            for c in groupCases {
                let fast = c.signature.withUnsafeBytes { s in
                    c.digest.withUnsafeBytes { table?.isValidSignature(s, digest: $0) ?? false }
                }
                let evp = c.signature.withUnsafeBytes { s in
                    c.digest.withUnsafeBytes { key.isValidES256ThroughEVP(s, digest: $0) }
                }
                if fast != c.expected { wrong.append("tcId \(c.id) alone: \(fast), expected \(c.expected)") }
                if evp != fast { wrong.append("tcId \(c.id): EVP says \(evp), fixed base \(fast)") }
            }
            // All of the group's well-sized signatures in batches.
            wrong += Self.batchDisagreements(
                groupCases.filter { $0.signature.count == 64 }.map {
                    ($0.id, $0.expected, $0.digest, $0.signature, $0.table!)
                })
            cases += groupCases
        }
        // Every key's cases interleaved: batches that mix keys and verdicts.
        let sized = cases.filter { $0.signature.count == 64 }
        var mixed: [(Int, Bool, [UInt8], [UInt8], FixedBaseP256Key)] = []
        for offset in 0..<7 {
            for (i, c) in sized.enumerated() where i % 7 == offset {
                mixed.append((c.id, c.expected, c.digest, c.signature, c.table!))
            }
        }
        wrong += Self.batchDisagreements(mixed)
        print(
            "wycheproof P-256 fixed base: \(cases.count) cases (\(cases.filter(\.expected).count) valid), \(groups.count) keys, \(wrong.count) wrong"
        )
        #expect(cases.count == document["numberOfTests"] as? Int)
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    /// Runs `cases` through `FixedBaseP256Key.verify` in full batches; the cases whose batch verdict
    /// differs from the expected one.
    static func batchDisagreements(
        _ cases: [(id: Int, expected: Bool, digest: [UInt8], signature: [UInt8], table: FixedBaseP256Key)]
    ) -> [String] {
        var wrong: [String] = []
        var start = 0
        while start < cases.count {
            let chunk = Array(cases[start..<min(cases.count, start + Verifier.stageSize)])
            let verdicts = batchVerdicts(chunk.map { ($0.table, $0.digest, $0.signature) })
            for (c, verdict) in zip(chunk, verdicts) where verdict != c.expected {
                wrong.append("tcId \(c.id) in a batch of \(chunk.count): \(verdict), expected \(c.expected)")
            }
            start += chunk.count
        }
        return wrong
    }

    static func batchVerdicts(_ entries: [(FixedBaseP256Key, [UInt8], [UInt8])]) -> [Bool] {
        let flat = entries.flatMap { $0.1 + $0.2 }
        return flat.withUnsafeBytes { bytes in
            let list = entries.indices.map { i in
                FixedBaseP256Key.BatchEntry(
                    key: entries[i].0, digest: bytes.baseAddress! + i * 96, signature: bytes.baseAddress! + i * 96 + 32)
            }
            var valid = [UInt8](repeating: 7, count: entries.count)
            list.withUnsafeBufferPointer { list in
                valid.withUnsafeMutableBufferPointer { FixedBaseP256Key.verify(list, valid: $0) }
            }
            return valid.map { $0 == 1 }
        }
    }

    /// A signer's key, its table, and `count` signatures of distinct messages.
    static func signatures(_ count: Int, signer: TokenFactory.Signer = TokenFactory.ec) throws -> (
        FixedBaseP256Key, [([UInt8], [UInt8])]
    ) {
        let members = Dictionary(uniqueKeysWithValues: signer.key.publicJWKMembers())
        let point = [0x04] + (Base64URL.decode(members["x"]!.utf8) ?? []) + (Base64URL.decode(members["y"]!.utf8) ?? [])
        let table = try #require(FixedBaseP256Key(uncompressedPoint: point))
        let list = try (0..<count).map { i -> ([UInt8], [UInt8]) in
            let message = Array("message \(i)".utf8)
            return (MessageDigest.sha256.hash(message), try signer.key.sign(message, algorithm: .es256))
        }
        return (table, list)
    }

    @Test("one bad signature in a batch of 1,000 fails alone; a batch of bad signatures fails them all")
    func batchIsolation() throws {
        let (table, list) = try Self.signatures(1000)
        var tampered = list
        tampered[617].1[40] ^= 0x01
        var cases = tampered.enumerated().map {
            (id: $0.offset, expected: $0.offset != 617, digest: $0.element.0, signature: $0.element.1, table: table)
        }
        #expect(Self.batchDisagreements(cases).isEmpty)
        // Every kind of bad: flipped bits, r or s = 0, = n, > n, out-of-range, swapped digests.
        let zero = [UInt8](repeating: 0, count: 32)
        let big = [UInt8](repeating: 0xff, count: 32)
        cases = list.enumerated().map { i, entry in
            let (digest, signature) = entry
            let r = Array(signature[..<32])
            let s = Array(signature[32...])
            let bad: [UInt8]
            switch i % 8 {
            case 0: bad = zero + s
            case 1: bad = r + zero
            case 2: bad = Self.n + s
            case 3: bad = r + Self.n
            case 4: bad = big + s
            case 5: bad = r + big
            case 6: bad = s + r
            default: bad = signature.enumerated().map { $0.offset == 63 ? $0.element ^ 0x80 : $0.element }
            }
            return (id: i, expected: false, digest: digest, signature: bad, table: table)
        }
        #expect(Self.batchDisagreements(cases).isEmpty)
        // And an all-valid batch still passes after all that.
        cases = list.enumerated().map {
            (id: $0.offset, expected: true, digest: $0.element.0, signature: $0.element.1, table: table)
        }
        #expect(Self.batchDisagreements(cases).isEmpty)
    }

    @Test(
        "batches of 1 to 20 signatures with one bad at every place, or a digest of zero: each its own verdict, in groups of eight on crypto_mb's lanes or not"
    )
    func groupsOfEight() throws {
        // With crypto_mb loaded, groups with 4 to 8 usable u1 go through its lanes; smaller ones, and
        // a digest of zero (u1 = 0, the point at infinity), through OpenSSL.
        if MultiBufferEngine.isLoaded { #expect(MultiBufferEngine.multipliesP256Generator) }
        let (table, list) = try Self.signatures(20)
        var wrong: [String] = []
        for size in 1...20 {
            for bad in 0..<size {
                let zeroDigest = bad % 3 == 2
                let cases = (0..<size).map { i in
                    var (digest, signature) = list[i]
                    if i == bad {
                        if zeroDigest { digest = [UInt8](repeating: 0, count: 32) } else { signature[bad % 64] ^= 0x10 }
                    }
                    return (id: size * 100 + i, expected: i != bad, digest: digest, signature: signature, table: table)
                }
                wrong += Self.batchDisagreements(cases)
            }
            let all = (0..<size).map {
                (id: size * 100 + $0, expected: true, digest: list[$0].0, signature: list[$0].1, table: table)
            }
            wrong += Self.batchDisagreements(all)
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    @Test("r or s of 0, n or more is refused before any arithmetic; r + n < p is the only other x(R) that can match")
    func ranges() throws {
        let (table, list) = try Self.signatures(1)
        let (digest, signature) = list[0]
        let r = Array(signature[..<32])
        let s = Array(signature[32...])
        var nPlusOne = Self.n
        nPlusOne[31] += 1
        for bad in [r + Self.n, Self.n + s, nPlusOne + s, r + nPlusOne, Self.p + s, [UInt8](repeating: 0, count: 64)] {
            let valid = bad.withUnsafeBytes { b in digest.withUnsafeBytes { table.isValidSignature(b, digest: $0) } }
            #expect(!valid)
        }
        #expect(signature.withUnsafeBytes { b in digest.withUnsafeBytes { table.isValidSignature(b, digest: $0) } })
    }

    @Test("a batch of 300 ES256 tokens through the fixed-base batch stage gives each its own verdict")
    func batchedVerifier() throws {
        let verifier = TokenFactory.verifier()
        let key = try #require(verifier.keys.keys.first { $0.keyID == "ec-a" }?.key)
        #expect(key.buildFixedBaseNow() != nil)
        var tokens = (0..<300).map { i in
            TokenFactory.token(payload: TokenFactory.claims(extra: #""n":\#(i)"#), signer: TokenFactory.ec)
        }
        // A bad signature (last octet of s), a token signed by another key under ec-a's kid, one RS256.
        let parts17 = tokens[17].split(separator: ".")
        var signature17 = Base64URL.decode(parts17[2].utf8)!
        signature17[40] ^= 0x10
        tokens[17] = parts17[0] + "." + parts17[1] + "." + Base64URL.encode(signature17)
        let foreign = TokenFactory.Signer(
            kid: "ec-a", algorithm: .es256, key: try EVPPrivateKey.generateEC(curve: "P-256"))
        tokens[150] = TokenFactory.token(payload: TokenFactory.claims(), signer: foreign)
        tokens[299] = TokenFactory.token(payload: TokenFactory.claims())
        let expected = tokens.indices.map { [17, 150].contains($0) ? "bad_signature" : "valid" }
        var batch = TokenBatch()
        for token in tokens { batch.append(token) }
        let reasons = verifier.verify(batch).map { $0.errorReason ?? "valid" }
        #expect(reasons == expected)
    }

    @Test("a P-256 key earns its table after a few verifications, once, and only P-256 keys have one")
    func lazyTable() throws {
        let signer = TokenFactory.Signer(
            kid: "lazy", algorithm: .es256, key: try EVPPrivateKey.generateEC(curve: "P-256"))
        let keys = try JWKSet(json: Array("{\"keys\":[\(signer.jwkJSON)]}".utf8))
        let key = try #require(keys.keys.first?.key)
        let verifier = Verifier(
            keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        let token = Array(TokenFactory.token(payload: TokenFactory.claims(), signer: signer).utf8)
        #expect(key.fixedBaseSlot != nil)
        for _ in 0..<(FixedBaseSlot.threshold - 1) {
            #expect(token.withUnsafeBytes { verifier.evaluate($0, nonce: nil, at: .clock) }.errorReason == nil)
        }
        #expect(key.fixedBaseSlot?.isBuilt == false)
        let built = FixedBaseSlot.tableCounts.built
        // The threshold's use starts the build in the background and is verified meanwhile.
        #expect(token.withUnsafeBytes { verifier.evaluate($0, nonce: nil, at: .clock) }.errorReason == nil)
        #expect(Self.eventually { key.fixedBaseSlot?.isBuilt == true })
        #expect(FixedBaseSlot.tableCounts.built > built)
        let table = try #require(key.fixedBase)
        #expect(key.fixedBase === table)
        #expect(key.buildFixedBaseNow() === table)
        #expect(token.withUnsafeBytes { verifier.evaluate($0, nonce: nil, at: .clock) }.errorReason == nil)
        #expect(TokenFactory.keys.keys.first { $0.keyID == "rsa-a" }?.key?.fixedBaseSlot == nil)
        let p384 = try EVPPrivateKey.generateEC(curve: "P-384")
        let p384Set = try JWKSet(
            json: Array("{\"keys\":[\(TokenFactory.Signer(kid: "p384", algorithm: .es384, key: p384).jwkJSON)]}".utf8))
        #expect(p384Set.keys.first?.key?.fixedBaseSlot == nil)
    }
}

extension FixedBaseP256Tests {
    @Test("8 threads crossing the threshold together: one table is built, every token verifies")
    func concurrentBuild() throws {
        let signer = TokenFactory.Signer(
            kid: "race", algorithm: .es256, key: try EVPPrivateKey.generateEC(curve: "P-256"))
        let keys = try JWKSet(json: Array("{\"keys\":[\(signer.jwkJSON)]}".utf8))
        let verifier = Verifier(
            keys: keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience], clock: { TokenFactory.now })
        let tokens = (0..<64).map {
            Array(TokenFactory.token(payload: TokenFactory.claims(extra: #""n":\#($0)"#), signer: signer).utf8)
        }
        let before = FixedBaseSlot.tableCounts.built
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for (i, token) in tokens.enumerated() where i % 2 == thread % 2 || thread > 3 {
                if case .failure = token.withUnsafeBytes({ verifier.evaluate($0, nonce: nil, at: .clock) }) {
                    failures.wrappingAdd(1, ordering: .relaxed)
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(Self.eventually { keys.keys.first?.key?.hasFixedBaseTable == true })
        #expect(keys.keys.first?.key?.fixedBaseSlot?.buildCount == 1)
        #expect(FixedBaseSlot.tableCounts.built - before >= 1)
        #expect(FixedBaseSlot.tableCounts.live <= FixedBaseSlot.tableCap)
    }
}

extension FixedBaseP256Tests {
    @Test("DPoP proof keys have their own pool of tables: when it is full, a key set's key still gets its table")
    func proofKeyPool() throws {
        guard FixedBaseP256Key.isAvailable else { return }
        func freshKey(_ pool: FixedBaseSlot.Pool) throws -> EVPPublicKey {
            let privateKey = try EVPPrivateKey.generateEC()
            let point = withExtendedLifetime(privateKey) { EVPPublicKey(borrowing: privateKey.pointer).octets("pub") }
            return try EVPPublicKey.ec(group: "P-256", uncompressedPoint: try #require(point), fixedBasePool: pool)
        }
        // Fill the proof keys' pool (other tests may hold some of its tables meanwhile).
        var held: [EVPPublicKey] = []
        var refused = false
        for _ in 0..<(2 * FixedBaseSlot.proofKeyTableCap) {
            let key = try freshKey(.proofKeys)
            guard key.buildFixedBaseNow() != nil else {
                refused = true
                break
            }
            held.append(key)
        }
        #expect(refused)
        #expect(FixedBaseSlot.proofKeyTablesLive <= FixedBaseSlot.proofKeyTableCap)
        // The issuers' pool is untouched by it.
        let issuers = try freshKey(.keySets)
        #expect(issuers.buildFixedBaseNow() != nil)
        #expect(issuers.hasFixedBaseTable)
        withExtendedLifetime(held) {}
    }
}

extension FixedBaseP256Tests {
    /// Whether `condition` holds within 10 s (a table or chain built in the background).
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}

extension Result where Failure == VerificationError {
    /// The reason code of a failure, `nil` on success.
    var errorReason: String? {
        if case .failure(let error) = self { return error.reason.rawValue }
        return nil
    }
}
