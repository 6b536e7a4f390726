import Dispatch
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Synchronization
import Testing

@testable import JWTVerify

/// The RS256/RS384/RS512 path through each RSA key's Montgomery chain (`rsa_montgomery.h`),
/// against OpenSSL's own `EVP_PKEY_verify` on the same keys, digests and signatures.
@Suite("RSA Montgomery chain")
struct RSAMontgomeryTests {
    static let algorithms: [SignatureAlgorithm] = [.rs256, .rs384, .rs512]

    /// The public half of `key`, imported as a JWK's `n` and `e` are.
    static func publicKey(of key: EVPPrivateKey) throws -> EVPPublicKey {
        let members = Dictionary(uniqueKeysWithValues: key.publicJWKMembers())
        return try EVPPublicKey.rsa(
            modulus: try #require(Base64URL.decode(members["n"]!.utf8)),
            exponent: try #require(Base64URL.decode(members["e"]!.utf8)))
    }

    /// Signatures the chain must judge as OpenSSL does: the valid one, then altered ones.
    static func candidates(valid signature: [UInt8], modulus: [UInt8]) -> [(String, [UInt8])] {
        var cases: [(String, [UInt8])] = [("valid", signature)]
        for position in [0, 1, 2, signature.count / 2, signature.count - 33, signature.count - 1] {
            var flipped = signature
            flipped[position] ^= 0x01
            cases.append(("bit flipped at \(position)", flipped))
        }
        func offset(_ value: [UInt8], by delta: Int) -> [UInt8] {
            var bytes = value
            var carry = delta
            for i in bytes.indices.reversed() where carry != 0 {
                let sum = Int(bytes[i]) + carry
                bytes[i] = UInt8(truncatingIfNeeded: sum)
                carry = sum >> 8
            }
            return bytes
        }
        let length = signature.count
        cases += [
            ("s = n", modulus), ("s = n - 1", offset(modulus, by: -1)), ("s = n + 1", offset(modulus, by: 1)),
            ("s = 0", [UInt8](repeating: 0, count: length)), ("s = 1", [UInt8](repeating: 0, count: length - 1) + [1]),
            ("all 0xFF", [UInt8](repeating: 0xFF, count: length)),
            ("one octet short", Array(signature.dropFirst())), ("one octet long", [0] + signature),
        ]
        return cases
    }

    /// Every candidate through the chain and through `EVP_PKEY_verify`: the same verdict, true only
    /// for the valid signature; and the token path (`isValidSignature`) agrees.
    static func checkAgreement(_ privateKey: EVPPrivateKey, _ publicKey: EVPPublicKey, chain: RSAMontgomeryKey) throws {
        let modulus = try #require(publicKey.bigNumber("n"))
        for algorithm in algorithms {
            let message = Array("header.payload for \(algorithm)".utf8)
            let digest = algorithm.digest!.hash(message)
            let signature = try privateKey.sign(message, algorithm: algorithm)
            for (name, candidate) in candidates(valid: signature, modulus: modulus) {
                let throughChain = chain.verifies(candidate, digest: digest, algorithm: algorithm)
                let throughEVP = candidate.withUnsafeBytes { s in
                    digest.withUnsafeBytes { publicKey.isValidPKCS1ThroughEVP(s, digest: $0, algorithm: algorithm) }
                }
                let throughToken = candidate.withUnsafeBytes { s in
                    message.withUnsafeBytes { publicKey.isValidSignature(s, over: $0, algorithm: algorithm) }
                }
                #expect(throughChain == (name == "valid"), "\(algorithm) \(name): chain says \(throughChain)")
                #expect(
                    throughEVP == throughChain, "\(algorithm) \(name): EVP says \(throughEVP), chain \(throughChain)")
                #expect(throughToken == throughChain, "\(algorithm) \(name): token path says \(throughToken)")
            }
            // The right signature under another algorithm's digest, and a digest one bit off.
            for other in algorithms where other != algorithm {
                let otherDigest = other.digest!.hash(message)
                #expect(
                    !chain.verifies(signature, digest: otherDigest, algorithm: other),
                    "\(algorithm) signature taken as \(other)")
            }
            var altered = digest
            altered[0] ^= 0x80
            #expect(!chain.verifies(signature, digest: altered, algorithm: algorithm))
            #expect(!chain.verifies(signature, digest: Array(digest.dropLast()), algorithm: algorithm))
        }
    }

    @Test(
        "exponents up to 64 bits get a chain that judges every signature as EVP_PKEY_verify does",
        arguments: [
            ([3], 2048), ([17], 2048), ([1, 0, 1], 2048), ([1, 0, 1], 3072), ([0x80, 0, 0, 0, 0, 0, 0, 0x1D], 2048),
        ] as [([UInt8], Int)])
    func agreesWithEVP(exponent: [UInt8], bits: Int) throws {
        let privateKey = try EVPPrivateKey.generateRSA(bits: bits, exponent: exponent)
        let publicKey = try Self.publicKey(of: privateKey)
        let chain = try #require(publicKey.rsaChain, "a \(bits)-bit key with e = \(exponent) has no chain")
        try Self.checkAgreement(privateKey, publicKey, chain: chain)
    }

    @Test("an exponent over 64 bits leaves the key to EVP_PKEY_verify, which still verifies it")
    func wideExponentUsesEVP() throws {
        let privateKey = try EVPPrivateKey.generateRSA(bits: 2048, exponent: [1, 0, 0, 0, 0, 0, 0, 0, 1])
        let publicKey = try Self.publicKey(of: privateKey)
        #expect(publicKey.rsaChain == nil)
        let message = Array("m".utf8)
        let signature = try privateKey.sign(message, algorithm: .rs256)
        let valid = signature.withUnsafeBytes { s in
            message.withUnsafeBytes { publicKey.isValidSignature(s, over: $0, algorithm: .rs256) }
        }
        #expect(valid)
        var flipped = signature
        flipped[100] ^= 1
        let invalid = flipped.withUnsafeBytes { s in
            message.withUnsafeBytes { publicKey.isValidSignature(s, over: $0, algorithm: .rs256) }
        }
        #expect(!invalid)
    }

    @Test("8 threads share one key's chain, each with its own scratch, and every verdict stays right")
    func sharedAcrossThreads() throws {
        let privateKey = TokenFactory.rsa.key
        let publicKey = try Self.publicKey(of: privateKey)
        let chain = try #require(publicKey.rsaChain)
        let messages = (0..<16).map { Array("message \($0)".utf8) }
        let signatures = try messages.map { try privateKey.sign($0, algorithm: .rs256) }
        let digests = messages.map { MessageDigest.sha256.hash($0) }
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<100 {
                let index = (worker + round) % messages.count
                var signature = signatures[index]
                let tampered = round % 3 == 0
                if tampered { signature[round % signature.count] ^= 0x10 }
                if chain.verifies(signature, digest: digests[index], algorithm: .rs256) == tampered {
                    wrong.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }

    @Test("a key set's import builds no chain; a key's first RS256 verification builds its own, once, on any thread")
    func builtOnFirstUse() throws {
        let rsa = try EVPPrivateKey.generateRSA()
        let other = try EVPPrivateKey.generateRSA()
        let ec = try EVPPrivateKey.generateEC()
        func jwk(_ key: EVPPrivateKey, _ kid: String) -> String {
            let members = key.publicJWKMembers().map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",")
            return #"{"kid":"\#(kid)",\#(members)}"#
        }
        let set = try JWKSet(json: Array(#"{"keys":[\#(jwk(rsa, "a")),\#(jwk(other, "b")),\#(jwk(ec, "c"))]}"#.utf8))
        let keys = try ["a", "b", "c"].map { try #require(set.key(withID: $0)?.key) }
        #expect(keys.allSatisfy { !$0.hasRSAChain }, "importing built a chain")
        let message = Array("header.payload".utf8)
        let signature = try rsa.sign(message, algorithm: .rs256)
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<20 {
                var candidate = signature
                let tampered = (worker + round) % 4 == 0
                if tampered { candidate[7] ^= 0x40 }
                let valid = candidate.withUnsafeBytes { s in
                    message.withUnsafeBytes { keys[0].isValidSignature(s, over: $0, algorithm: .rs256) }
                }
                if valid == tampered { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        // Built in the background from the first use (the uses until then went through EVP).
        #expect(FixedBaseP256Tests.eventually { keys[0].hasRSAChain })
        #expect(!keys[1].hasRSAChain, "another key's chain was built")
        let ecSignature = try ec.sign(message, algorithm: .es256)
        #expect(
            ecSignature.withUnsafeBytes { s in
                message.withUnsafeBytes { keys[2].isValidSignature(s, over: $0, algorithm: .es256) }
            })
        #expect(!keys[2].hasRSAChain && keys[2].rsaChain == nil)
    }

    @Test("moduli and exponents the chain refuses")
    func refusals() throws {
        let modulus = try #require(try Self.publicKey(of: TokenFactory.rsa.key).bigNumber("n"))
        var even = modulus
        even[even.count - 1] &= 0xFE
        #expect(RSAMontgomeryKey(modulus: modulus, exponent: [1, 0, 1]) != nil)
        #expect(RSAMontgomeryKey(modulus: even, exponent: [1, 0, 1]) == nil, "even modulus")
        #expect(
            RSAMontgomeryKey(modulus: Array(modulus.prefix(32)) + [1], exponent: [3]) == nil, "a modulus under 512 bits"
        )
        #expect(
            RSAMontgomeryKey(modulus: [UInt8](repeating: 0xFF, count: 2049), exponent: [3]) == nil,
            "a modulus over 16384 bits")
        #expect(RSAMontgomeryKey(modulus: modulus, exponent: [1]) == nil, "e = 1")
        #expect(RSAMontgomeryKey(modulus: modulus, exponent: [2]) == nil, "even e")
        #expect(RSAMontgomeryKey(modulus: modulus, exponent: []) == nil, "e = 0")
        #expect(RSAMontgomeryKey(modulus: modulus, exponent: [1, 0, 0, 0, 0, 0, 0, 0, 1]) == nil, "e over 64 bits")
        let ec = try EVPPrivateKey.generateEC()
        withExtendedLifetime(ec) { #expect(EVPPublicKey(borrowing: ec.pointer).rsaChain == nil, "not an RSA key") }
    }
}
