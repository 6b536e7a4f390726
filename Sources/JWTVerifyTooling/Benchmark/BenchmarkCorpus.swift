package import JWTVerify
import JWTVerifyKeyMaking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tokens, keys and nonces to measure verification on: generated Apple-shaped, or read from files.
package struct BenchmarkCorpus: Sendable {
    /// The key set the tokens verify against.
    package let keys: JWKSet
    /// The tokens, as bytes.
    package let tokens: [[UInt8]]
    /// The raw nonce for each token (`nil`: no nonce check).
    package let nonces: [String?]
    /// The issuer and audience the verifier requires.
    package let issuer: String
    package let audience: String
    /// The time tokens are evaluated at.
    package let now: Double
    /// The key set as a JWKS document, when the corpus was generated.
    package var jwksDocument: [UInt8] = []
    /// The policy to verify with instead of issuer and audience over ``keys`` (App Store signed
    /// data, whose keys come from each token's chain; ``keys`` then holds the leaf's key, for the
    /// raw limit).
    package var policy: VerificationPolicy? = nil

    /// For corpora whose tokens bring their keys (App Store signed data read from a file): every
    /// compact JWS each token carries, the token itself first and then the signed data nested in
    /// it, with the key its `x5c` chain leads to. The raw limit checks all of a token's
    /// signatures, as full verification does. `nil`: one signature per token, under ``keys``.
    package var carriedSignatures: [[CarriedSignature]]? = nil

    /// One signature a token carries, and the key it is checked with.
    package struct CarriedSignature: Sendable {
        /// The compact JWS.
        package let jws: [UInt8]
        /// Its `x5c` leaf's key.
        package let key: EVPPublicKey
    }

    package init(keys: JWKSet, tokens: [[UInt8]], nonces: [String?], issuer: String, audience: String, now: Double) {
        self.keys = keys
        self.tokens = tokens
        self.nonces = nonces
        self.issuer = issuer
        self.audience = audience
        self.now = now
    }

    /// `count` Apple-shaped identity tokens signed with `algorithm` by three fresh keys in turn
    /// (RSA-2048 keys for RS*/PS*: about 900-byte tokens; P-256 for ES256: about 650 bytes; the
    /// matching curve for ES384/ES512/EdDSA), each with its own raw nonce.
    package static func appleShaped(count: Int, algorithm: SignatureAlgorithm) throws -> BenchmarkCorpus {
        try appleShapedWithKeySet(count: count, algorithm: algorithm)
    }

    /// `count` App Store transactions (StoreKit 2 `JWSTransaction` shape, about 2 KB each), ES256
    /// under a fresh chain shaped like Apple's: a root, an intermediate with
    /// 1.2.840.113635.100.6.2.1 and a P-256 leaf with 1.2.840.113635.100.6.11.1, all in each
    /// token's `x5c`. They verify under the App Store policy trusting that root, at their
    /// `signedDate`; the raw limit checks each signature with the leaf's key.
    package static func appStore(count: Int) throws -> BenchmarkCorpus {
        let now = 1_767_225_600.0
        let (from, until) = (now - 86_400, now + 365 * 86_400)
        let rootKey = try EVPPrivateKey.generateEC(curve: "P-256")
        let caKey = try EVPPrivateKey.generateEC(curve: "P-256")
        let leafKey = try EVPPrivateKey.generateEC(curve: "P-256")
        guard let root = rootKey.certificate(commonName: "Bench Root", from: from, until: until, isCA: true, serial: 1),
            let ca = caKey.certificate(
                commonName: "Bench Intermediate", issuer: (root, rootKey), from: from, until: until, isCA: true,
                extensionOID: AppStoreTrust.intermediateExtension, serial: 2),
            let leaf = leafKey.certificate(
                commonName: "Bench Leaf", issuer: (ca, caKey), from: from, until: until, isCA: false,
                extensionOID: AppStoreTrust.leafExtension,
                serial: 3)
        else { throw JWKSetError("cannot make the benchmark's certificate chain") }
        func standardBase64(_ bytes: [UInt8]) -> String {
            var text = Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 }
            while text.count % 4 != 0 { text.append("=") }
            return String(text)
        }
        let header =
            #"{"alg":"ES256","x5c":["\#(standardBase64(leaf))","\#(standardBase64(ca))","\#(standardBase64(root))"]}"#
        let encodedHeader = Base64URL.encode(Array(header.utf8))
        var tokens: [[UInt8]] = []
        for index in 0..<count {
            let signed = Int64(now * 1000) + Int64(index)
            let payload =
                #"{"transactionId":"\#(2_000_000_000 + index)","originalTransactionId":"2000000000","webOrderLineItemId":"\#(9_000_000 + index)","#
                + #""bundleId":"com.example.app","productId":"pro.monthly","subscriptionGroupIdentifier":"21000000","purchaseDate":\#(signed - 1000),"#
                + #""originalPurchaseDate":\#(signed - 86_400_000),"expiresDate":\#(signed + 2_592_000_000),"quantity":1,"type":"Auto-Renewable Subscription","#
                + #""inAppOwnershipType":"PURCHASED","signedDate":\#(signed),"environment":"Sandbox","transactionReason":"PURCHASE","storefront":"USA","#
                + #""storefrontId":"143441","price":9990,"currency":"USD"}"#
            let signingInput = encodedHeader + "." + Base64URL.encode(Array(payload.utf8))
            let signature = try leafKey.sign(Array(signingInput.utf8), algorithm: .es256)
            tokens.append(Array((signingInput + "." + Base64URL.encode(signature)).utf8))
        }
        var jwk = OutputText()
        jwk.beginObject()
        jwk.key("keys")
        jwk.beginArray()
        jwk.beginObject()
        for (name, value) in leafKey.publicJWKMembers() {
            jwk.key(name)
            jwk.string(value)
        }
        jwk.endObject()
        jwk.endArray()
        jwk.endObject()
        var corpus = BenchmarkCorpus(
            keys: try JWKSet(json: jwk.bytes), tokens: tokens, nonces: Array(repeating: nil, count: count), issuer: "",
            audience: "", now: now)
        corpus.policy = .appStore(bundleIDs: ["com.example.app"], trust: try AppStoreTrust(rootCertificates: [root]))
        return corpus
    }

    /// App Store signed data read from a file (real tokens, as Apple signs them), verified under
    /// the App Store policy for `bundleIDs`, `appAppleID` and `trust`, each judged at its own `signedDate`. The
    /// raw limit checks every signature a token carries (a notification's nested transaction and
    /// renewal info too) with its chain's leaf key; a token whose chain is not trusted is left out
    /// of it (and rejected by full verification).
    package static func appStore(
        tokens: [[UInt8]], bundleIDs: [String], appAppleID: Int64? = nil, trust: AppStoreTrust
    ) -> BenchmarkCorpus {
        var corpus = BenchmarkCorpus(
            keys: JWKSet(keys: []), tokens: tokens, nonces: Array(repeating: nil, count: tokens.count), issuer: "",
            audience: "", now: 0)
        corpus.policy = .appStore(bundleIDs: bundleIDs, appAppleID: appAppleID, trust: trust)
        corpus.carriedSignatures = tokens.map { token in
            var carried: [CarriedSignature] = []
            var pending = [token]
            while let jws = pending.popLast() {
                let peek = UnverifiedToken(peeking: jws)
                guard case .array(let chain)? = peek.header?.member("x5c"), chain.count >= 2,
                    let leaf = chain[0].stringValue, let intermediate = chain[1].stringValue,
                    let key = trust.trustedLeafKey(leaf: leaf, intermediate: intermediate)
                else { return [] }
                carried.append(CarriedSignature(jws: jws, key: key))
                for path in AppStoreClaims.nestedSignedDataFields.reversed() {
                    if let nested = peek.payload?.member(path: path)?.stringValue { pending.append(Array(nested.utf8)) }
                }
            }
            return carried
        }
        return corpus
    }

    /// Writes `jwks.json`, `tokens.txt` and `nonces.txt` into `directory`, each token (and its
    /// nonce) `repeating` times in a row.
    package func write(to directory: String, repeating: Int) throws {
        var tokensText: [UInt8] = []
        var noncesText: [UInt8] = []
        for _ in 0..<repeating {
            for (token, nonce) in zip(tokens, nonces) {
                tokensText += token + [0x0A]
                noncesText += Array((nonce ?? "").utf8) + [0x0A]
            }
        }
        try Self.writeFile(directory + "/jwks.json", jwksDocument)
        try Self.writeFile(directory + "/tokens.txt", tokensText)
        try Self.writeFile(directory + "/nonces.txt", noncesText)
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        guard let file = fopen(path, "wb") else { throw JWKSetError("cannot write \(path)") }
        defer { fclose(file) }
        guard bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file) }) == bytes.count else {
            throw JWKSetError("cannot write \(path)")
        }
    }

    private static func appleShapedWithKeySet(count: Int, algorithm: SignatureAlgorithm) throws -> BenchmarkCorpus {
        let now = 1_767_225_600.0
        let signers: [(String, EVPPrivateKey)] = try (0..<3).map { index in
            let key: EVPPrivateKey
            switch algorithm.family {
            case .rsaPKCS1, .rsaPSS: key = try EVPPrivateKey.generateRSA(bits: 2048)
            case .ecdsa(let curve, _): key = try EVPPrivateKey.generateEC(curve: curve)
            case .edDSA: key = try EVPPrivateKey.generateEd25519()
            }
            return ("bk\(index)X7qLm2", key)
        }
        var jwks = OutputText()
        jwks.beginObject()
        jwks.key("keys")
        jwks.beginArray()
        for (kid, key) in signers {
            jwks.beginObject()
            for (name, value) in key.publicJWKMembers() {
                jwks.key(name)
                jwks.string(value)
            }
            jwks.key("kid")
            jwks.string(kid)
            jwks.key("use")
            jwks.string("sig")
            jwks.key("alg")
            jwks.string(algorithm.name)
            jwks.endObject()
        }
        jwks.endArray()
        jwks.endObject()
        var tokens: [[UInt8]] = []
        var nonces: [String?] = []
        for index in 0..<count {
            let (kid, key) = signers[index % signers.count]
            let rawNonce = "bench-nonce-\(index)-\(UInt32.random(in: 0...UInt32.max))"
            let header = #"{"kid":"\#(kid)","alg":"\#(algorithm.name)"}"#
            let iat = Int(now) - 120 - index % 300
            let payload =
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(iat + 600),"iat":\#(iat),"#
                + #""sub":"00\#(1000 + index % 9000).5f0a2b9c8d7e4f61a3b2c1d0e9f8a7b6.\#(1000 + index % 8999)","#
                + #""nonce":"\#(Nonce.expectedClaim(forRawNonce: rawNonce))","c_hash":"Q2hhbGxlbmdlSGFzaDEyMw","#
                + #""email":"x7q2kd9p4m@privaterelay.appleid.com","email_verified":"true","#
                + #""is_private_email":"true","auth_time":\#(iat),"nonce_supported":true}"#
            let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
            let signature = try key.sign(Array(signingInput.utf8), algorithm: algorithm)
            tokens.append(Array((signingInput + "." + Base64URL.encode(signature)).utf8))
            nonces.append(rawNonce)
        }
        var corpus = BenchmarkCorpus(
            keys: try JWKSet(json: jwks.bytes), tokens: tokens, nonces: nonces, issuer: "https://appleid.apple.com",
            audience: "com.example.app", now: now)
        corpus.jwksDocument = jwks.bytes
        return corpus
    }

    /// The same corpus in storage of its own (token buffers and nonce strings not shared with
    /// this one), for one benchmark thread.
    package func privateCopy() -> BenchmarkCorpus {
        var copy = BenchmarkCorpus(
            keys: keys, tokens: tokens.map { token in token.withUnsafeBufferPointer { [UInt8]($0) } },
            nonces: nonces.map { nonce in nonce.map { String(decoding: Array($0.utf8), as: UTF8.self) } },
            issuer: issuer,
            audience: audience, now: now)
        copy.jwksDocument = jwksDocument
        copy.policy = policy
        copy.carriedSignatures = carriedSignatures
        return copy
    }

    /// The octets token `index` and its nonce take in a batch.
    func byteCount(_ index: Int) -> Int { tokens[index].count + (nonces[index]?.utf8.count ?? 0) }

    /// Adds token `index` (with its nonce) to `batch`.
    func add(_ index: Int, to batch: inout TokenBatch) {
        tokens[index].withUnsafeBytes { token in
            guard var nonce = nonces[index] else { return batch.append(bytes: token, nonce: nil) }
            nonce.withUTF8 { batch.append(bytes: token, nonce: UnsafeRawBufferPointer($0)) }
        }
    }

    /// Whether `verifier` accepts token `index` (with its nonce).
    func accepts(_ verifier: Verifier, _ index: Int) -> Bool {
        tokens[index].withUnsafeBytes { token in
            if case .success = verifier.evaluate(token, nonce: nonces[index], at: .clock) { return true }
            return false
        }
    }

    /// Each token once through `verifier` (with its nonce): how many were rejected, by reason,
    /// in the order of the reasons' checks. The benchmark measures verification, and a rejected
    /// token skips the signature, so a corpus with rejections measures something else.
    package func rejections(_ verifier: Verifier) -> [(reason: String, count: Int)] {
        var counts: [String: Int] = [:]
        for index in tokens.indices {
            tokens[index].withUnsafeBytes { token in
                if case .failure(let error) = verifier.evaluate(token, nonce: nonces[index], at: .clock) {
                    counts[error.reason.rawValue, default: 0] += 1
                }
            }
        }
        let order = VerificationError.Reason.all.map(\.rawValue)
        return counts.sorted {
            (order.firstIndex(of: $0.key) ?? order.count, $0.key) < (
                order.firstIndex(of: $1.key) ?? order.count, $1.key
            )
        }
        .map { ($0.key, $0.value) }
    }

    /// A verifier for this corpus.
    package var verifier: Verifier {
        if let policy { return Verifier(keys: keys, policy: policy) }
        return Verifier(
            keys: keys, issuer: issuer, audiences: [audience], algorithms: Set(SignatureAlgorithm.all),
            clock: { [now] in now })
    }
}

extension JSONValue {
    /// An object's member, its name compared as bytes.
    fileprivate func member(_ name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { exactlyEquals($0.key, name) }?.value
    }

    /// The value at a dotted path of object members.
    fileprivate func member(path: String) -> JSONValue? {
        var value: JSONValue? = self
        for name in path.split(separator: ".") { value = value?.member(String(name)) }
        return value
    }
}
