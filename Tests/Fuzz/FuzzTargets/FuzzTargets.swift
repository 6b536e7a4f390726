// libFuzzer targets, one binary; JWTFUZZ_TARGET picks one (make fuzz TARGET=... adds
// -sanitize=fuzzer,address and -D FUZZING):
//   json      the fast JSON scanner against jansson (any disagreement crashes)
//   token     arbitrary bytes as a token against a fixed key set and policy
//   jwks      arbitrary bytes as a key-set document (JWKS, single JWK, x509 certificate map)
//   input     arbitrary bytes as CLI input: JSON-lines requests, report records, audit extraction
//   mutation  mutations of valid tokens: a token that differs from a signed one must never verify
//   http      serve's HTTP-facing parsing: Authorization and plain token values, /verify bodies,
//             and the gateway's headers (never a control or non-ASCII byte in a header value)
//   es256     the fixed-base P-256 path (alone and in a batch) against OpenSSL's EVP_PKEY_verify on
//             valid, mutated, random and edge-valued signatures: any disagreement crashes
//   rsa       the RS256/RS384/RS512 Montgomery chain against OpenSSL's EVP_PKEY_verify, the same way,
//             with keys of several sizes and exponents
//   transport arbitrary bytes as a key origin's and as Apple's raw HTTP answer, handed over as
//             libcurl hands them (head line by line, body in chunks): never past a cap, never a
//             secret repeated, never a key set from anything but a 200
//   serve     arbitrary requests through serve's service: the path (routes, dot segments, escapes)
//             and the credential headers; never a 200 from the wrong route or from two credentials,
//             every answer header-safe
//   notification  arbitrary bytes as a notification body on a notification route and as the
//             signed payload inside a well-formed envelope
//   dpop, htu  DPoP proofs with their request, and the htu normaliser (DPoPFuzzTargets.swift)
//   storeapi  raw answers as the pages of an App Store Server API call (StoreAPIFuzzTarget.swift)
//   discovery arbitrary bytes as an issuer's metadata document (checked against fixed issuers:
//             accepted only with the issuer's exact bytes and a fetchable jwks_uri) and as an
//             issuer (both well-known URLs well formed, and a document naming it accepted)
// A plain build replays files given as arguments through the chosen target.
import Foundation
import JWTVerify
import JWTVerifyKeyMaking
import JWTVerifyRemote
import JWTVerifyServer
import JWTVerifyTestSupport
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#endif

enum FuzzTargets {
    static let target = getenv("JWTFUZZ_TARGET").map { String(cString: $0) } ?? "json"

    static let verifier = Verifier(
        keys: TokenFactory.keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience],
        algorithms: Set(SignatureAlgorithm.all), clock: { TokenFactory.now })

    /// The same keys under each provider's rules, for the token target.
    static let profileVerifiers: [Verifier] = [
        VerificationPolicy.appleIdentityToken(
            audiences: [TokenFactory.audience], acceptMissingNonceWhenUnsupported: true),
        .appleNotification(audiences: [TokenFactory.audience]), .firebase(project: TokenFactory.audience),
        .google(audiences: [TokenFactory.audience], hostedDomain: "example.com"),
        .oidc(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]),
    ].map { Verifier(keys: TokenFactory.keys, policy: $0.clock { TokenFactory.now }) }

    /// Tokens for the cache target: valid ones by each key (with and without a nonce, with nbf),
    /// one near expiry, and one for another audience.
    static let cacheTokens: [[UInt8]] = {
        let nonce = Nonce.expectedClaim(forRawNonce: "r")
        let payloads = [
            TokenFactory.claims(extra: #""nonce":"\#(nonce)""#), TokenFactory.claims(),
            TokenFactory.claims(exp: "1700001200", iat: "1700000900", extra: #""nbf":1700000950"#),
            #"{"iss":"https://appleid.apple.com","aud":"com.example.other","exp":1700003600,"iat":1700000000,"sub":"s"}"#,
        ]
        return payloads.flatMap { payload in
            [TokenFactory.rsa, TokenFactory.ec].map { Array(TokenFactory.token(payload: payload, signer: $0).utf8) }
        }
    }()

    /// Valid tokens by each key, for the mutation target.
    static let validTokens: [[UInt8]] = [TokenFactory.rsa, TokenFactory.ec].map { signer in
        Array(TokenFactory.token(payload: TokenFactory.claims(extra: #""nonce":"n""#), signer: signer).utf8)
    }

    /// P-256 keys with their fixed-base tables, for the es256 target.
    static let p256Keys: [(private: EVPPrivateKey, public: EVPPublicKey, table: FixedBaseP256Key)] = (0..<6).map { _ in
        let key = try! EVPPrivateKey.generateEC(curve: "P-256")
        let members = Dictionary(uniqueKeysWithValues: key.publicJWKMembers())
        let point = [0x04] + Base64URL.decode(members["x"]!.utf8)! + Base64URL.decode(members["y"]!.utf8)!
        return (
            key, try! EVPPublicKey.ec(group: "P-256", uncompressedPoint: point),
            FixedBaseP256Key(uncompressedPoint: point)!
        )
    }
    static let order = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// One es256 case: byte 0 picks the key, byte 1 how the signature is made, the rest is the
    /// message (and, for random signatures, the signature's bytes).
    static func es256(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2 else { return }
        let (privateKey, publicKey, table) = p256Keys[Int(bytes[0]) % p256Keys.count]
        let rest = Array(bytes[2...])
        let message = Array(rest.prefix(64))
        let digest = MessageDigest.sha256.hash(message)
        var signature = try! privateKey.sign(message, algorithm: .es256)
        let knob = rest.count > 64 ? Int(rest[64]) : rest.count
        switch bytes[1] % 8 {
        case 0: break  // valid
        case 1: signature[knob % 64] ^= UInt8(1 << (knob % 8))  // one bit flipped
        // random r and s
        case 2: signature = (0..<64).map { rest.count > 0 ? rest[$0 % rest.count] &+ UInt8($0) : UInt8($0) }
        case 3:  // r or s near 0
            let small = [UInt8](repeating: 0, count: 31) + [UInt8(knob % 4)]
            if knob & 0x10 == 0 {
                signature.replaceSubrange(0..<32, with: small)
            } else {
                signature.replaceSubrange(32..<64, with: small)
            }
        case 4:  // r or s near n: n - 2 ... n + 1
            var near = order
            near[31] = near[31] &+ UInt8(knob % 4) &- 2
            if knob & 0x10 == 0 {
                signature.replaceSubrange(0..<32, with: near)
            } else {
                signature.replaceSubrange(32..<64, with: near)
            }
        case 5:
            // another key
            signature = try! p256Keys[(Int(bytes[0]) + 1) % p256Keys.count].private.sign(message, algorithm: .es256)
        case 6: signature.replaceSubrange(32..<64, with: signature[0..<32])  // s = r
        default: signature = Array(signature[32..<64] + signature[0..<32])  // r and s swapped
        }
        let reference = signature.withUnsafeBytes { s in
            digest.withUnsafeBytes { publicKey.isValidES256ThroughEVP(s, digest: $0) }
        }
        let alone = signature.withUnsafeBytes { s in digest.withUnsafeBytes { table.isValidSignature(s, digest: $0) } }
        guard alone == reference else {
            fatalError("fixed base says \(alone), EVP says \(reference): \(signature) over \(digest)")
        }
        // In a batch of eight among valid signatures of another key, at a place the input picks (a
        // group of eight that crypto_mb's lanes take when it is loaded): each keeps its own verdict.
        let (otherKey, _, otherTable) = p256Keys[(Int(bytes[0]) + 2) % p256Keys.count]
        let good = try! otherKey.sign(message, algorithm: .es256)
        let place = Int(bytes[1]) % 8
        let material = (0..<8).flatMap { $0 == place ? digest + signature : digest + good }
        let verdicts = material.withUnsafeBytes { m -> [UInt8] in
            let base = m.baseAddress!
            let entries = (0..<8).map { i in
                FixedBaseP256Key.BatchEntry(
                    key: i == place ? table : otherTable, digest: base + i * 96, signature: base + i * 96 + 32)
            }
            var valid = [UInt8](repeating: 9, count: 8)
            entries.withUnsafeBufferPointer { e in
                valid.withUnsafeMutableBufferPointer { FixedBaseP256Key.verify(e, valid: $0) }
            }
            return valid
        }
        guard verdicts == (0..<8).map({ $0 == place ? (reference ? 1 : 0) : 1 }) else {
            fatalError("batch verdicts \(verdicts), EVP says \(reference)")
        }
    }

    /// RSA keys with their chains, for the rsa target: sizes and exponents the chain takes.
    static let rsaKeys: [(private: EVPPrivateKey, public: EVPPublicKey, chain: RSAMontgomeryKey, modulus: [UInt8])] =
        ([
            (2048, [1, 0, 1]), (2048, [3]), (3072, [1, 0, 1]), (2048, [0x80, 0, 0, 0, 0, 0, 0, 0x1D]),
            (2048, [1, 0, 1]), (4096, [1, 0, 1]),
        ] as [(Int, [UInt8])]).map { bits, exponent in
            let key = try! EVPPrivateKey.generateRSA(bits: bits, exponent: exponent)
            let members = Dictionary(uniqueKeysWithValues: key.publicJWKMembers())
            let modulus = Base64URL.decode(members["n"]!.utf8)!
            let publicKey = try! EVPPublicKey.rsa(modulus: modulus, exponent: Base64URL.decode(members["e"]!.utf8)!)
            return (key, publicKey, publicKey.rsaChain!, modulus)
        }

    /// One rsa case: byte 0 picks the key and algorithm, byte 1 how the signature is made, the
    /// rest is the message (and, for random signatures, the signature's bytes).
    static func rsa(_ bytes: UnsafeRawBufferPointer) {
        guard let made = rsaCase(bytes, keys: Array(rsaKeys.indices)) else { return }
        let reference = made.signature.withUnsafeBytes { s in
            made.digest.withUnsafeBytes {
                rsaKeys[made.key].public.isValidPKCS1ThroughEVP(s, digest: $0, algorithm: made.algorithm)
            }
        }
        let chained = rsaKeys[made.key].chain.verifies(made.signature, digest: made.digest, algorithm: made.algorithm)
        guard chained == reference else {
            fatalError(
                "chain says \(chained), EVP says \(reference): \(made.signature) over \(made.digest) (\(made.algorithm))"
            )
        }
    }

    /// The signature, digest and algorithm of one rsa case among the keys at `choices`.
    static func rsaCase(_ bytes: UnsafeRawBufferPointer, keys choices: [Int])
        -> (key: Int, signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm)?
    {
        guard bytes.count >= 2, !choices.isEmpty else { return nil }
        let chosen = choices[Int(bytes[0]) % choices.count]
        let (privateKey, _, _, modulus) = rsaKeys[chosen]
        let algorithm = [SignatureAlgorithm.rs256, .rs384, .rs512][Int(bytes[0] / 4) % 3]
        let rest = Array(bytes[2...])
        let message = Array(rest.prefix(64))
        var digest = algorithm.digest!.hash(message)
        var signature = try! privateKey.sign(message, algorithm: algorithm)
        let knob = rest.count > 64 ? Int(rest[64]) : rest.count
        switch bytes[1] % 9 {
        case 0: break  // valid
        case 1: signature[knob % signature.count] ^= UInt8(1 << (knob % 8))  // one bit flipped
        case 2:
            signature = (0..<signature.count).map {
                rest.count > 0 ? rest[$0 % rest.count] &+ UInt8($0 & 0xFF) : UInt8($0 & 0xFF)
            }  // random
        case 3: signature = [UInt8](repeating: 0, count: signature.count - 1) + [UInt8(knob % 4)]  // s = 0 ... 3
        case 4:  // s near n: n - 2 ... n + 1, carried through the low octets
            var near = modulus
            var delta = knob % 4 - 2
            for i in near.indices.reversed() where delta != 0 {
                let sum = Int(near[i]) + delta
                near[i] = UInt8(truncatingIfNeeded: sum)
                delta = sum >> 8
            }
            signature = near
        // another key
        case 5: signature = try! rsaKeys[(chosen + 1) % rsaKeys.count].private.sign(message, algorithm: algorithm)
        case 6: digest[knob % digest.count] ^= 1  // the digest of another message
        case 7:  // s + n, where it keeps the modulus's length: the same s^e mod n, never valid
            var carry = 0
            var shifted = signature
            for i in shifted.indices.reversed() {
                let sum = Int(shifted[i]) + Int(modulus[i]) + carry
                shifted[i] = UInt8(truncatingIfNeeded: sum)
                carry = sum >> 8
            }
            if carry == 0 { signature = shifted }
        default:
            signature = try! privateKey.sign(
                // another hash
                message, algorithm: [SignatureAlgorithm.rs256, .rs384, .rs512][(Int(bytes[0] / 4) + 1) % 3])
        }
        return (chosen, signature, digest, algorithm)
    }

    /// The multi-buffer engine against `EVP_PKEY_verify`: byte 0 picks a modulus size, then every
    /// 24 bytes make one lane (an rsa case among the keys of that size), up to eight lanes in one
    /// call; each lane's verdict must be OpenSSL's, whatever its neighbours.
    static func multiBuffer(_ bytes: UnsafeRawBufferPointer) {
        guard MultiBufferEngine.isLoaded, let first = bytes.first else { return }
        let sizes = Array(Set(rsaKeys.map(\.public.bits))).sorted()
        let bits = sizes[Int(first) % sizes.count]
        let keys = rsaKeys.indices.filter {
            rsaKeys[$0].public.bits == bits && MultiBufferEngine.takes(rsaKeys[$0].public) != nil
        }
        var lanes: [(key: EVPPublicKey, signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm)] = []
        var references: [Bool] = []
        var start = 1
        while lanes.count < 8, start + 2 <= bytes.count {
            let end = min(start + 24, bytes.count)
            if let made = rsaCase(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), keys: keys) {
                let publicKey = rsaKeys[made.key].public
                lanes.append((publicKey, made.signature, made.digest, made.algorithm))
                references.append(
                    made.signature.withUnsafeBytes { s in
                        made.digest.withUnsafeBytes {
                            publicKey.isValidPKCS1ThroughEVP(s, digest: $0, algorithm: made.algorithm)
                        }
                    })
            }
            start = end
        }
        guard !lanes.isEmpty else { return }
        guard let verdicts = MultiBufferEngine.verify(lanes) else {
            fatalError("the engine refused lanes of \(bits)-bit keys it takes")
        }
        guard verdicts == references else {
            fatalError("multi-buffer engine says \(verdicts), EVP_PKEY_verify \(references)")
        }
    }

    static let claimHeaders = ["name=X-name", "groups=X-groups", "email=X-email", "address.country=X-Country"].map {
        GatewayAnswer.ClaimHeader(parsing: $0)!
    }

    /// One http case: byte 0 picks what the rest is.
    static func http(_ bytes: UnsafeRawBufferPointer) {
        guard let mode = bytes.first else { return }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[1...])
        func checkToken(_ parsed: BearerCredential.Parsed) {
            guard case .token(let range) = parsed else { return }
            guard range.lowerBound >= 0, range.upperBound <= rest.count, !range.isEmpty else {
                fatalError("token range \(range) outside \(rest.count)")
            }
            // A token found in a header is evaluated like any other, and its answer is header-safe.
            let result = verifier.evaluate(UnsafeRawBufferPointer(rebasing: rest[range]), nonce: nil, at: .clock)
            checkHeaders(GatewayAnswer.verdict(result, claimHeaders: claimHeaders, realm: "r\"\r\n"))
        }
        switch mode % 4 {
        case 0: checkToken(BearerCredential.parse(authorization: rest))
        case 1: checkToken(BearerCredential.parse(plain: rest))
        case 2:
            let evaluator = RequestLineEvaluator(verifier: verifier, defaultNonce: nil, time: .clock)
            if case .success(let records) = VerifyBody.evaluate(Array(rest), with: evaluator) {
                let lines = records.output.split(separator: UInt8(ascii: "\n")).count
                guard lines == records.tally.total else {
                    fatalError("\(lines) records for \(records.tally.total) requests")
                }
            }
        default:
            // A verified token whose claims hold the fuzzer's bytes: every header value stays safe.
            let text = String(decoding: rest, as: UTF8.self)
            var escaped = OutputText()
            escaped.string(text)
            let token = TokenFactory.token(
                payload: TokenFactory.claims(extra: #""name":\#(escaped.string),"groups":[\#(escaped.string),1]"#))
            let result = Array(token.utf8).withUnsafeBytes { verifier.evaluate($0, nonce: nil, at: .clock) }
            guard case .success = result else {
                fatalError("a signed token with fuzzed claims was rejected: \(result)")
            }
            checkHeaders(GatewayAnswer.verdict(result, claimHeaders: claimHeaders, realm: text))
            checkHeaders(GatewayAnswer.noToken(realm: text))
        }
    }

    /// One transport case: byte 0 picks the chunk size and the reader, the rest is the raw answer.
    static func transport(_ bytes: UnsafeRawBufferPointer) {
        guard let knob = bytes.first else { return }
        let raw = Array(bytes.dropFirst())
        let chunk = 1 + Int(knob >> 2)
        if knob & 1 == 0 {
            let (result, keys) = TransportReplay.keySetAnswer(raw, chunk: chunk)
            switch result {
            case .document(let body, let maxAge, _, _):
                if body.count > 16 * 1024 { fatalError("a body of \(body.count) octets passed the 16 KiB cap") }
                if let maxAge, !(maxAge >= 0) { fatalError("max-age \(maxAge)") }
                if let keys { for key in keys.keys { _ = SignatureAlgorithm.all.filter(key.mayVerify) } }
            case .notModified, .failed:
                if keys != nil { fatalError("a key set from an answer that is not a 200") }
            }
        } else {
            switch TransportReplay.appleAnswer(raw, chunk: chunk, expectsObject: knob & 2 == 0) {
            case .success: break
            case .failure(let error):
                if error.detail.contains("secret-1") { fatalError("a secret repeated in an error: \(error.detail)") }
            }
        }
    }

    /// The service over two file-key routes: `default` (the generic policy) and `apple` (Sign in
    /// with Apple's notifications), with claim headers and a token header and cookie.
    static let service: ServeService = {
        func route(_ name: String, _ policy: VerificationPolicy) -> ServeRoute {
            ServeRoute(
                configuration: RouteConfiguration(
                    name: name, claimHeaders: claimHeaders, tokenHeader: "X-Token", tokenCookie: "session", realm: "r",
                    time: .fixed(TokenFactory.now)),
                keys: .files(
                    Verifier(keys: TokenFactory.keys, policy: policy.clock { TokenFactory.now }), loadedAt: 0, count: 2)
            )
        }
        return ServeService(
            routes: ServeRoutes(routes: [
                "default": route("default", verifier.policy),
                "apple": route("apple", .appleNotification(audiences: [TokenFactory.audience])),
            ]))
    }()
    static let servedToken = TokenFactory.token(payload: TokenFactory.claims())

    /// One serve case: lines of `METHOD PATH`, then `Name: value` headers (`@` in a value stands
    /// for a valid token), then `\n\n` and a body.
    static func serve(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
        var lines = parts[0].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return }
        let first = lines.removeFirst().split(separator: " ", maxSplits: 1).map(String.init)
        let method = first.first ?? "GET"
        let path = first.count > 1 ? first[1] : "/auth"
        var headers: [(String, String)] = []
        var cookies: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].split(separator: "@", omittingEmptySubsequences: false)
                .joined(separator: servedToken)
            if name.lowercased() == "cookie" {
                for pair in value.split(separator: ";") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map { String($0.drop { $0 == " " }) }
                    if let name = kv.first { cookies.append((name, kv.count > 1 ? kv[1] : "")) }
                }
            } else {
                headers.append((name, value))
            }
        }
        let body = parts.count > 1 ? Array(parts[1].utf8) : []
        let request = InMemoryRequest(
            method: method, path: path, repeated: headers, repeatedCookies: cookies, body: body)
        let response = service.handle(request)
        for (name, value) in response.headers {
            for byte in Array(name.utf8) + Array(value.utf8) where byte < 0x20 || byte >= 0x7F {
                fatalError("header \(name) carries byte \(byte): \(value)")
            }
        }
        guard response.status == 200 else { return }
        // A 200 only for the exact paths a route answers, and for one credential.
        let bare = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let exact = [
            "/auth", "/verify", "/auth/default", "/verify/default", "/auth/apple", "/verify/apple",
            "/notifications/apple", "/appstore/apple", "/healthz", "/ready", "/metrics", "/notifications", "/appstore",
        ]
        let envoy = ["/ext-authz/default", "/ext-authz/apple"].contains { prefix in
            let bytes = Array(bare.utf8)
            return bytes.starts(with: prefix.utf8)
                && (bytes.count == prefix.utf8.count || bytes[prefix.utf8.count] == UInt8(ascii: "/"))
        }
        if !envoy && !exact.contains(where: { Array($0.utf8) == Array(bare.utf8) }) {
            fatalError("200 for path \(path)")
        }
        if bare.hasPrefix("/auth") || envoy {
            // Another scheme (Basic, ...) in Authorization carries no token: only Bearer counts.
            let bearers = request.headerLines.filter { line in
                line.name.lowercased() == "authorization"
                    && line.value.withUnsafeBytes { BearerCredential.parse(authorization: $0) } != .absent
            }
            // A blank token header or cookie carries nothing either.
            let plain =
                (request.headerLines.filter { $0.name.lowercased() == "x-token" }
                + request.cookieLines.filter { $0.name == "session" })
                .filter { line in line.value.withUnsafeBytes { BearerCredential.parse(plain: $0) } != .absent }
            let credentials = bearers.count + plain.count
            if credentials > 1 { fatalError("200 for a request with \(credentials) credentials") }
        }
    }

    /// One notification case: byte 0 picks the body's shape, the rest fills it.
    static func notification(_ bytes: UnsafeRawBufferPointer) {
        guard let shape = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        var body: [UInt8]
        switch shape % 3 {
        case 0: body = rest
        case 1:
            var escaped = OutputText()
            escaped.string(String(decoding: rest, as: UTF8.self))
            body = Array(#"{"payload":\#(escaped.string)}"#.utf8)
        default:
            // A signed notification whose payload's members come from the fuzzer.
            let payload =
                #"{"iss":"https://appleid.apple.com","aud":"\#(TokenFactory.audience)","iat":1700000000,"exp":1700003600,"jti":"j","events":"#
                + String(decoding: rest, as: UTF8.self) + "}"
            body = Array(#"{"payload":""#.utf8) + Array(TokenFactory.token(payload: payload).utf8) + Array(#""}"#.utf8)
        }
        let response = service.handle(InMemoryRequest(method: "POST", path: "/notifications/apple", body: body))
        if ![200, 400, 401, 503].contains(response.status) { fatalError("notification answered \(response.status)") }
    }

    /// The issuers the discovery target checks documents against: host only, a path, a
    /// trailing slash, loopback http, and a path past ASCII (precomposed).
    static let discoveryIssuers = [
        "https://id.example", "https://id.example/tenant/1", "https://id.example/", "http://127.0.0.1:8080",
        "https://id.example/caf\u{e9}",
    ]

    /// One discovery case: byte 0 picks the mode (and the issuer), the rest is a document or an issuer.
    static func discovery(_ bytes: UnsafeRawBufferPointer) {
        guard let knob = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        if knob & 1 == 0 {
            let issuer = discoveryIssuers[Int(knob >> 1) % discoveryIssuers.count]
            guard let document = try? DiscoveryDocument(json: rest, issuer: issuer) else { return }
            let uri = Array(document.keySetURL.utf8)
            if uri.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
                fatalError("jwks_uri with byte outside ASCII: \(uri)")
            }
            let lowered = String(decoding: uri.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"]
            guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
                fatalError("jwks_uri of another scheme accepted: \(document.keySetURL)")
            }
            if lowered.hasPrefix("http://"), !loopback.contains(URL(string: lowered)?.host ?? "") {
                fatalError("http jwks_uri off loopback accepted: \(document.keySetURL)")
            }
            // An independent reading of the accepted document names the same issuer, byte for byte.
            if let object = try? JSONSerialization.jsonObject(with: Data(rest)) as? [String: Any],
                let named = object["issuer"] as? String, Array(named.utf8) != Array(issuer.utf8)
            {
                fatalError("accepted a document naming \(Array(named.utf8)), not \(Array(issuer.utf8))")
            }
        } else {
            let issuer = String(decoding: rest, as: UTF8.self)
            guard let locations = try? DiscoveryLocations(issuer: issuer) else { return }
            let oidc = locations.openIDConfiguration
            let metadata = locations.authorizationServerMetadata
            for url in [oidc, metadata] where url.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
                fatalError("well-known URL with byte outside ASCII: \(Array(url.utf8))")
            }
            let oidcSuffix = "/.well-known/openid-configuration"
            let metadataInfix = "/.well-known/oauth-authorization-server"
            guard oidc.hasSuffix(oidcSuffix), let infix = metadata.range(of: metadataInfix) else {
                fatalError("well-known URLs \(oidc) \(metadata)")
            }
            // Both: the issuer's origin, then the same path, appended (OIDC) or after the infix (RFC 8414).
            let origin = String(metadata[..<infix.lowerBound])
            let path = String(metadata[infix.upperBound...])
            guard issuer.utf8.starts(with: origin.utf8), exactlyEquals(oidc, origin + path + oidcSuffix),
                !path.hasSuffix("/")
            else {
                fatalError("well-known URLs disagree: \(oidc) \(metadata) for \(issuer)")
            }
            var text = OutputText()
            text.beginObject()
            text.key("issuer")
            text.string(issuer)
            text.key("jwks_uri")
            text.string("https://keys.example/jwks")
            text.endObject()
            let document = Array(text.string.utf8)
            guard (try? DiscoveryDocument(json: document, issuer: issuer))?.keySetURL == "https://keys.example/jwks"
            else {
                fatalError("a document naming the issuer \(Array(issuer.utf8)) was refused: \(text.string)")
            }
            if (try? DiscoveryDocument(json: document, issuer: issuer + "x")) != nil {
                fatalError("a document naming another issuer was accepted")
            }
        }
    }

    static func checkHeaders(_ answer: GatewayAnswer) {
        for (name, value) in answer.headers {
            for byte in Array(name.utf8) + Array(value.utf8) where byte < 0x20 || byte >= 0x7F {
                fatalError("header \(name) carries byte \(byte): \(value)")
            }
        }
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        switch target {
        case "token":
            _ = verifier.evaluate(bytes, nonce: "raw", at: .clock)
            _ = verifier.outcome(bytes, nonce: nil, at: .issuedAt)
            for profiled in profileVerifiers { _ = profiled.outcome(bytes, nonce: "raw", at: .clock) }
            _ = UnverifiedToken(peeking: bytes)
        case "jwks":
            if let keys = try? JWKSet(json: Array(bytes)) {
                for key in keys.keys { _ = SignatureAlgorithm.all.filter(key.mayVerify) }
            }
        case "input":
            // Through the line reader (small chunks and a small line limit, so lines cross chunk
            // boundaries and oversized lines are discarded), then each line as verify and audit see it.
            var offset = 0
            let reader = LineReader(lineLimit: 300, chunkSize: 17) { buffer in
                let n = min(buffer.count, bytes.count - offset)
                if n > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])) }
                offset += n
                return n
            }
            var text = OutputText()
            let lines = RequestLineEvaluator(verifier: verifier, defaultNonce: nil, time: .clock)
            while let batch = try? reader.nextBatch(maxLines: 7, maxBytes: 1000) {
                for case .text(let range) in batch.lines {
                    batch.storage.withUnsafeBytes { storage in
                        let line = UnsafeRawBufferPointer(rebasing: storage[range])
                        _ = lines.evaluate(count: 1, file: nil, into: &text) { _ in (1, .text(line)) }
                        for found in TokenExtractor.scan(line).found {
                            found.token.withBytes(in: line) { _ = verifier.outcome($0, nonce: nil, at: .clock) }
                        }
                    }
                }
            }
            // The splitting reader audit uses: its pieces put back together are the input's lines.
            offset = 0
            let splitting = LineReader(
                lineLimit: 64,
                longLines: .split(isSeparator: TokenExtractor.isSeparator, searchBytes: 64, headBytes: 8), chunkSize: 13
            ) { buffer in
                let n = min(buffer.count, bytes.count - offset)
                if n > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])) }
                offset += n
                return n
            }
            var rebuilt: [[UInt8]] = []
            var open = false
            while let batch = try? splitting.nextBatch(maxLines: 5, maxBytes: 200) {
                for line in batch.lines {
                    switch line {
                    case .text(let range):
                        if open { fatalError("a whole line inside a split one") }
                        rebuilt.append(Array(batch.storage[range]))
                    case .piece(let range, let piece):
                        if range.count > 64 { fatalError("a piece over the limit") }
                        if open {
                            rebuilt[rebuilt.count - 1] += batch.storage[range]
                        } else {
                            rebuilt.append(Array(batch.storage[range]))
                        }
                        open = !piece.last
                    case .oversized: fatalError("a splitting reader discarded a line")
                    }
                }
            }
            var expected = Array(bytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(
                Array.init)
            if bytes.last == UInt8(ascii: "\n") || bytes.isEmpty { expected.removeLast() }
            if open || rebuilt != expected {
                fatalError("split lines do not put back together: \(rebuilt.count) against \(expected.count)")
            }
        case "mutation":
            guard bytes.count >= 3 else { return }
            var token = validTokens[Int(bytes[0]) % validTokens.count]
            // Each following pair of bytes: a position (scaled to the token) and a replacement byte.
            var index = 1
            while index + 1 < bytes.count {
                let position = Int(bytes[index]) * token.count / 256
                switch bytes[index + 1] % 3 {
                case 0: token[position] = bytes[index + 1]
                case 1: token.insert(bytes[index + 1], at: position)
                default: if token.count > 1 { token.remove(at: position) }
                }
                index += 2
            }
            let original = validTokens.contains(token)
            let accepted = token.withUnsafeBytes {
                if case .success = verifier.evaluate($0, nonce: nil, at: .clock) { true } else { false }
            }
            if accepted && !original {
                fatalError("a modified token verified: \(String(decoding: token, as: UTF8.self))")
            }
        case "es256":
            es256(bytes)
        case "rsa":
            rsa(bytes)
        case "mb":
            multiBuffer(bytes)
        case "http":
            http(bytes)
        case "transport":
            transport(bytes)
        case "serve":
            serve(bytes)
        case "notification":
            notification(bytes)
        case "dpop":
            dpop(bytes)
        case "htu":
            htu(bytes)
        case "discovery":
            discovery(bytes)
        case "storeapi":
            storeAPIAnswers(bytes)
        case "appstorebatch":
            appStoreBatchCase(bytes)
        case "cache":
            // A stream of genuine, repeated and mutated tokens, evaluated at moving times with
            // varying nonces, through a cached and an uncached verifier side by side. Each pair of
            // bytes is one step: which token (and whether to mutate it), then time and nonce.
            let cached = Verifier(keys: TokenFactory.keys, policy: verifier.policy, cache: .init(capacity: 3))
            var index = 0
            while index + 1 < bytes.count {
                let choice = Int(bytes[index])
                let knobs = Int(bytes[index + 1])
                index += 2
                var token = cacheTokens[choice % cacheTokens.count]
                if choice >= 128, index < bytes.count {
                    let position = Int(bytes[index]) * token.count / 256
                    token[position] = token[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                    index += 1
                }
                let time = TokenFactory.now + Double((knobs & 0x1F) - 16) * 250
                let nonce: String? = [nil, "r", "x", nil][knobs >> 6]
                let plain = token.withUnsafeBytes { verifier.evaluate($0, nonce: nonce, at: .fixed(time)) }
                let fromCache = token.withUnsafeBytes { cached.evaluate($0, nonce: nonce, at: .fixed(time)) }
                switch (plain, fromCache) {
                case (.success(let a), .success(let b)) where a.claims == b.claims && a.payload == b.payload: break
                case (.failure(let a), .failure(let b)) where a.reason == b.reason: break
                default: fatalError("cached and uncached verdicts differ: \(plain) vs \(fromCache)")
                }
            }
        default:
            if let problem = JSONDifferential.disagreement(bytes) {
                fatalError("scanner and jansson disagree: \(problem)")
            }
        }
    }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        FuzzTargets.run(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // libFuzzer's own C symbol.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // LeakSanitizer's own C symbols: allocations between them are never reported.
    @_silgen_name("__lsan_disable")
    func lsanDisable()
    @_silgen_name("__lsan_enable")
    func lsanEnable()

    /// SwiftPM links executables through `<module>_main`; start libFuzzer's driver from it.
    @_cdecl("jwtfuzz_main")
    public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        // The storeapi and appstorebatch targets' chains are made with the openssl command, and
        // Foundation's Process keeps an allocation for good: made before the first input, out of
        // the leak checker's sight.
        if FuzzTargets.target == "storeapi" {
            lsanDisable()
            _ = FuzzTargets.storeAPI
            lsanEnable()
        }
        if FuzzTargets.target == "appstorebatch" {
            lsanDisable()
            _ = FuzzTargets.appStoreBatch
            lsanEnable()
        }
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
    }
#else
    @main
    enum FuzzReplay {
        static func main() {
            for path in CommandLine.arguments.dropFirst() {
                guard let file = fopen(path, "rb") else { continue }
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { bytes += chunk[..<n] }
                fclose(file)
                bytes.withUnsafeBytes(FuzzTargets.run)
            }
        }
    }
#endif
