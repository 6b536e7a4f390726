import Foundation
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// What the library signs for the App Store (``AppStoreServerAPIToken`` and the offer and request
/// signers): the exact header and claims Apple's documentation and libraries give, each signature
/// checked by our verifier and by Python `cryptography` (``AppleSignerJudge``), and the failures'
/// codes.
@Suite("App Store signers")
struct AppStoreSignerTests {
    static let now = 1_700_001_000.0
    static let signer = TokenFactory.Signer(
        kid: "2X9R4HXF34", algorithm: .es256, key: try! EVPPrivateKey.generateEC(curve: "P-256"))
    static let pem = signer.key.pkcs8PEM()
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"

    /// The header and claims of `token`, as the exact text they were signed as.
    static func parts(_ token: String) -> (header: String, claims: String) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let decode = { (text: String) in String(decoding: Base64URL.decode(Array(text.utf8)) ?? [], as: UTF8.self) }
        return (decode(pieces[0]), decode(pieces.count > 1 ? pieces[1] : ""))
    }

    /// Whether our ES256 check accepts `token`'s signature with `signer`'s public key.
    static func signatureVerifies(_ token: String, signer: TokenFactory.Signer = signer) -> Bool {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3, let signature = Base64URL.decode(Array(pieces[2].utf8)) else { return false }
        let signingInput = Array("\(pieces[0]).\(pieces[1])".utf8)
        let key = EVPPublicKey(borrowing: signer.key.pointer)
        return signature.withUnsafeBytes { s in
            signingInput.withUnsafeBytes { key.isValidSignature(s, over: $0, algorithm: .es256) }
        }
    }

    /// `token` with one character of its signature changed.
    static func tampered(_ token: String) -> String {
        var bytes = Array(token.utf8)
        let index = bytes.count - 5
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The failure `body` throws, or `nil`.
    static func failure(_ body: () throws(AppleClientSecret.Failure) -> Void) -> AppleClientSecret.Failure? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("App Store Server API token: exact header and claims, verified by our verifier and by cryptography")
    func serverAPIToken() throws {
        let token = try AppStoreServerAPIToken.make(
            issuerID: Self.issuerID, keyID: "2X9R4HXF34", bundleID: "com.example.app", privateKeyPEM: Self.pem,
            lifetime: 1800, now: Self.now + 0.75)
        let (header, claims) = Self.parts(token)
        #expect(Array(header.utf8) == Array(#"{"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}"#.utf8))
        #expect(
            Array(claims.utf8)
                == Array(
                    (#"{"iss":"57246542-96fe-1a63-e053-0824d011072a","iat":1700001000,"exp":1700002800,"#
                        + #""aud":"appstoreconnect-v1","bid":"com.example.app"}"#).utf8))
        let keys = try JWKSet(json: Array("{\"keys\":[\(Self.signer.jwkJSON)]}".utf8))
        let verifier = Verifier(
            keys: keys, issuer: Self.issuerID, audiences: ["appstoreconnect-v1"], algorithms: [.es256],
            clock: { Self.now + 60 })
        let verified = try verifier.verify(token)
        #expect(verified.keyID == "2X9R4HXF34")
        #expect(verified.claims.expiresAt == 1_700_002_800)
        #expect(verified.claim("bid") == .string("com.example.app"))
        // Past its exp our verifier refuses it: the lifetime is real.
        let later = Verifier(
            keys: keys, issuer: Self.issuerID, audiences: ["appstoreconnect-v1"], clock: { Self.now + 1800 + 61 })
        #expect(TokenFactory.failure(token, verifier: later)?.reason == .expired)

        let answers = try AppleSignerJudge.judge([
            try AppleSignerJudge.jwsCase(token, jwkJSON: Self.signer.jwkJSON),
            try AppleSignerJudge.jwsCase(Self.tampered(token), jwkJSON: Self.signer.jwkJSON),
        ])
        #expect(answers[0]["valid"] as? Bool == true)
        #expect(answers[1]["valid"] as? Bool == false)
        let judged = try #require(answers[0]["claims"] as? [String: Any])
        #expect(judged["aud"] as? String == "appstoreconnect-v1" && judged["bid"] as? String == "com.example.app")
        #expect(judged["exp"] as? Int == 1_700_002_800 && judged["iat"] as? Int == 1_700_001_000)
        #expect((answers[0]["header"] as? [String: String]) == ["alg": "ES256", "kid": "2X9R4HXF34", "typ": "JWT"])
    }

    @Test("App Store Server API token: at most 60 minutes, identifiers required, a P-256 .p8 only")
    func serverAPITokenFailures() throws {
        func make(
            lifetime: Double = 3600, issuerID: String = "I", keyID: String = "K", bundleID: String = "B",
            key: [UInt8] = Self.pem
        ) -> AppleClientSecret.Failure? {
            Self.failure { () throws(AppleClientSecret.Failure) in
                _ = try AppStoreServerAPIToken.make(
                    issuerID: issuerID, keyID: keyID, bundleID: bundleID, privateKeyPEM: key, lifetime: lifetime,
                    now: Self.now)
            }
        }
        #expect(make(lifetime: 3600) == nil)
        #expect(make(lifetime: 1) == nil)
        #expect(make(lifetime: 3601)?.code == .invalidLifetime)
        #expect(make(lifetime: 3601)?.code.rawValue == "invalid_lifetime")
        #expect(make(lifetime: 0)?.code == .invalidLifetime)
        #expect(make(lifetime: .nan)?.code == .invalidLifetime)
        #expect(make(lifetime: .infinity)?.code == .invalidLifetime)
        #expect(make(issuerID: "")?.code == .missingIdentifier)
        #expect(make(keyID: "")?.code == .missingIdentifier)
        #expect(make(bundleID: "")?.code.rawValue == "missing_identifier")
        #expect(make(key: Array("not a key".utf8))?.code == .keyNotPKCS8)
        let p384 = make(key: try EVPPrivateKey.generateEC(curve: "P-384").pkcs8PEM())
        #expect(p384?.code == .keyNotP256)
        #expect(p384?.code.rawValue == "key_not_p256")
        #expect(make(key: try EVPPrivateKey.generateRSA(bits: 2048).pkcs8PEM())?.code == .keyNotP256)
        #expect(make(key: try EVPPrivateKey.generateEd25519().pkcs8PEM())?.code == .keyNotP256)
        // The lifetime is checked before the key is read, as the client secret does.
        #expect(make(lifetime: 3601, key: [])?.code == .invalidLifetime)
    }

    /// Our check and cryptography's of each of `tokens`, and of each with its signature changed:
    /// the claims cryptography decoded, per token.
    static func bothVerify(_ tokens: [String]) throws -> [[String: Any]] {
        for token in tokens {
            #expect(Self.signatureVerifies(token))
            #expect(!Self.signatureVerifies(Self.tampered(token)))
        }
        let cases = try tokens.flatMap { token in
            [
                try AppleSignerJudge.jwsCase(token, jwkJSON: Self.signer.jwkJSON),
                try AppleSignerJudge.jwsCase(Self.tampered(token), jwkJSON: Self.signer.jwkJSON),
            ]
        }
        let answers = try AppleSignerJudge.judge(cases)
        for (index, answer) in answers.enumerated() {
            #expect(answer["valid"] as? Bool == index.isMultiple(of: 2), "case \(index)")
            #expect((answer["header"] as? [String: String]) == ["alg": "ES256", "kid": "2X9R4HXF34", "typ": "JWT"])
        }
        return stride(from: 0, to: answers.count, by: 2).map { answers[$0]["claims"] as? [String: Any] ?? [:] }
    }

    static let nonce = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
    static let base = #"{"iss":"57246542-96fe-1a63-e053-0824d011072a","iat":1700001000,"#

    @Test("promotional offer V2: exact claims (aud promotional-offer, lowercase nonce), transactionId only when given")
    func promotionalOfferV2() throws {
        let make = { (transactionID: String?) throws(AppleClientSecret.Failure) in
            try PromotionalOfferV2Signature.make(
                issuerID: Self.issuerID, keyID: "2X9R4HXF34", bundleID: "com.example.app", privateKeyPEM: Self.pem,
                productID: "com.example.monthly", offerIdentifier: "WINBACK1", transactionID: transactionID,
                nonce: Self.nonce, now: Self.now)
        }
        let withTransaction = try make("2000000123456789")
        let without = try make(nil)
        #expect(
            Array(Self.parts(withTransaction).header.utf8)
                == Array(#"{"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}"#.utf8))
        let common =
            Self.base + #""aud":"promotional-offer","bid":"com.example.app","#
            + #""nonce":"6f9619ff-8b86-d011-b42d-00c04fc964ff","productId":"com.example.monthly","#
            + #""offerIdentifier":"WINBACK1""#
        #expect(
            Array(Self.parts(withTransaction).claims.utf8)
                == Array((common + #","transactionId":"2000000123456789"}"#).utf8))
        #expect(Array(Self.parts(without).claims.utf8) == Array((common + "}").utf8))
        let judged = try Self.bothVerify([withTransaction, without])
        #expect(judged[0]["transactionId"] as? String == "2000000123456789" && judged[1]["transactionId"] == nil)
        #expect(judged[0]["aud"] as? String == "promotional-offer" && judged[0]["exp"] == nil)
    }

    @Test("a nonce not given is a fresh random lowercase version 4 UUID; one given must be a UUID")
    func nonces() throws {
        var seen: Set<String> = []
        for _ in 0..<8 {
            let token = try PromotionalOfferV2Signature.make(
                issuerID: "I", keyID: "K", bundleID: "B", privateKeyPEM: Self.pem, productID: "p", offerIdentifier: "o")
            let claims = try #require(
                try JSONSerialization.jsonObject(with: Data(Self.parts(token).claims.utf8)) as? [String: Any])
            let nonce = try #require(claims["nonce"] as? String)
            let bytes = Array(nonce.utf8)
            #expect(AppStoreNonce.lowercasedUUID(nonce) == nonce)
            #expect(bytes[14] == UInt8(ascii: "4"))
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(bytes[19]))
            seen.insert(nonce)
        }
        #expect(seen.count == 8)
        for bad in [
            "", "not-a-uuid", "6F9619FF8B86D011B42D00C04FC964FF", "6F9619FF-8B86-D011-B42D-00C04FC964FG",
            "{6F9619FF-8B86-D011-B42D-00C04FC964FF}", "6F9619FF-8B86-D011-B42D-00C04FC964F\u{FF21}",
        ] {
            let failure = Self.failure { () throws(AppleClientSecret.Failure) in
                _ = try PromotionalOfferV2Signature.make(
                    issuerID: "I", keyID: "K", bundleID: "B", privateKeyPEM: Self.pem, productID: "p",
                    offerIdentifier: "o", nonce: bad)
            }
            #expect(failure?.code.rawValue == "invalid_nonce", "\(bad)")
        }
    }

    @Test("introductory-offer eligibility: exact claims, allowIntroductoryOffer a JSON boolean, transactionId required")
    func introductoryOfferEligibility() throws {
        let make = { (allow: Bool, transactionID: String) throws(AppleClientSecret.Failure) in
            try IntroductoryOfferEligibilitySignature.make(
                issuerID: Self.issuerID, keyID: "2X9R4HXF34", bundleID: "com.example.app", privateKeyPEM: Self.pem,
                productID: "com.example.yearly", allowIntroductoryOffer: allow, transactionID: transactionID,
                nonce: Self.nonce, now: Self.now)
        }
        let allowed = try make(true, "2000000123456789")
        let refused = try make(false, "2000000123456789")
        let common =
            Self.base + #""aud":"introductory-offer-eligibility","bid":"com.example.app","#
            + #""nonce":"6f9619ff-8b86-d011-b42d-00c04fc964ff","productId":"com.example.yearly","#
        #expect(
            Array(Self.parts(allowed).claims.utf8)
                == Array((common + #""allowIntroductoryOffer":true,"transactionId":"2000000123456789"}"#).utf8))
        #expect(
            Array(Self.parts(refused).claims.utf8)
                == Array((common + #""allowIntroductoryOffer":false,"transactionId":"2000000123456789"}"#).utf8))
        let judged = try Self.bothVerify([allowed, refused])
        #expect(judged[0]["allowIntroductoryOffer"] as? Bool == true)
        #expect(judged[1]["allowIntroductoryOffer"] as? Bool == false)
        #expect(
            Self.failure { () throws(AppleClientSecret.Failure) in _ = try make(true, "") }?.code == .missingIdentifier)
    }

    @Test(
        "Advanced Commerce: request is the exact JSON bytes in padded standard base64; not a JSON object is invalid_request"
    )
    func advancedCommerce() throws {
        // Bytes whose base64 has "+", "/" and padding, and non-ASCII text, signed as they are.
        let request = Array(#"{"operation":"CREATE_ONE_TIME_CHARGE","description":"Caf\#u{E9} ~~~>>>???","n":1}"#.utf8)
        let token = try AdvancedCommerceInAppSignature.make(
            issuerID: Self.issuerID, keyID: "2X9R4HXF34", bundleID: "com.example.app", privateKeyPEM: Self.pem,
            request: request, nonce: Self.nonce, now: Self.now)
        let expected = Data(request).base64EncodedString()
        #expect(expected.contains("+") || expected.contains("/"))
        #expect(
            Array(Self.parts(token).claims.utf8)
                == Array(
                    (Self.base + #""aud":"advanced-commerce-api","bid":"com.example.app","#
                        + #""nonce":"6f9619ff-8b86-d011-b42d-00c04fc964ff","request":"\#(expected)"}"#).utf8))
        let judged = try Self.bothVerify([token])
        let carried = try #require(judged[0]["request"] as? String)
        #expect(Data(base64Encoded: carried).map(Array.init) == request)
        for length in 0..<7 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 0xFB + $0) }
            #expect(AppleES256Signer.standardBase64(bytes) == Data(bytes).base64EncodedString(), "\(length)")
        }
        for bad in ["", "[1]", "\"x\"", "{\"a\":1} {", "not json"] {
            let failure = Self.failure { () throws(AppleClientSecret.Failure) in
                _ = try AdvancedCommerceInAppSignature.make(
                    issuerID: "I", keyID: "K", bundleID: "B", privateKeyPEM: Self.pem, request: Array(bad.utf8))
            }
            #expect(failure?.code.rawValue == "invalid_request", "\(bad)")
        }
    }

    /// R‖S from a DER `ECDSA-Sig-Value` (each INTEGER right-aligned in 32 octets), or `nil`.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var index = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            let integer = der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 }
            guard integer.count <= 32 else { return nil }
            raw += [UInt8](repeating: 0, count: 32 - integer.count) + integer
            index += 2 + length
        }
        return index == der.count ? raw : nil
    }

    @Test("promotional offer V1: the exact U+2063-joined bytes, a DER signature our check and cryptography accept")
    func promotionalOfferV1() throws {
        let made = try PromotionalOfferV1Signature.make(
            keyID: "2X9R4HXF34", bundleID: "com.example.app", privateKeyPEM: Self.pem,
            productID: "com.example.monthly", offerIdentifier: "WINBACK1",
            applicationUsername: "E3A6A1B2-0C44-4D5E-9F00-1234567890AB", nonce: Self.nonce,
            timestamp: 1_700_001_000_123)
        #expect(made.nonce == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(made.timestamp == 1_700_001_000_123 && made.keyIdentifier == "2X9R4HXF34")
        let separator: [UInt8] = [0xE2, 0x81, 0xA3]
        let expected =
            Array("com.example.app".utf8) + separator + Array("2X9R4HXF34".utf8) + separator
            + Array("com.example.monthly".utf8) + separator + Array("WINBACK1".utf8) + separator
            + Array("e3a6a1b2-0c44-4d5e-9f00-1234567890ab".utf8) + separator
            + Array("6f9619ff-8b86-d011-b42d-00c04fc964ff".utf8) + separator + Array("1700001000123".utf8)
        let message = PromotionalOfferV1Signature.message(
            bundleID: "com.example.app", keyID: "2X9R4HXF34", productID: "com.example.monthly",
            offerIdentifier: "WINBACK1", applicationUsername: "E3A6A1B2-0C44-4D5E-9F00-1234567890AB",
            nonce: Self.nonce, timestamp: 1_700_001_000_123)
        #expect(message == expected)
        let der = try #require(Data(base64Encoded: made.signature).map(Array.init))
        #expect(AppleES256Signer.standardBase64(der) == made.signature)
        let raw = try #require(Self.raw(fromDER: der))
        let key = EVPPublicKey(borrowing: Self.signer.key.pointer)
        let valid = raw.withUnsafeBytes { s in
            expected.withUnsafeBytes { key.isValidSignature(s, over: $0, algorithm: .es256) }
        }
        #expect(valid)
        var jwk = try AppleSignerJudge.publicKey(jwkJSON: Self.signer.jwkJSON)
        jwk["v1"] = made.signature
        let fields: [String: Any] = [
            "bundleId": "com.example.app", "keyId": "2X9R4HXF34", "productId": "com.example.monthly",
            "offerId": "WINBACK1", "appAccountToken": "E3A6A1B2-0C44-4D5E-9F00-1234567890AB", "nonce": Self.nonce,
            "timestamp": 1_700_001_000_123,
        ]
        let good = jwk.merging(fields) { $1 }
        // The same signature over another offer, or another timestamp, is refused by cryptography.
        let otherOffer = good.merging(["offerId": "WINBACK2"]) { $1 }
        let otherTime = good.merging(["timestamp": 1_700_001_000_124]) { $1 }
        let answers = try AppleSignerJudge.judge([good, otherOffer, otherTime])
        #expect(answers.map { $0["valid"] as? Bool } == [true, false, false])
        #expect(answers[0]["message"] as? String == expected.map { String(format: "%02x", $0) }.joined())
        // Without an app account token the field is empty, and the separators stay.
        let bare = PromotionalOfferV1Signature.message(
            bundleID: "b", keyID: "k", productID: "p", offerIdentifier: "o", applicationUsername: "", nonce: "n",
            timestamp: 5)
        #expect(bare == Array("b\u{2063}k\u{2063}p\u{2063}o\u{2063}\u{2063}n\u{2063}5".utf8))
    }

    @Test("DER: each half without leading zeros, a zero octet before a set top bit")
    func derEncoding() {
        let high = [UInt8](repeating: 0x80, count: 32)
        let small = [UInt8](repeating: 0, count: 31) + [0x01]
        #expect(AppleES256Signer.der(high + small) == [0x30, 0x26, 0x02, 0x21, 0x00] + high + [0x02, 0x01, 0x01])
        let leading = [0x00, 0x00, 0x7F] + [UInt8](repeating: 0xFF, count: 29)
        #expect(
            AppleES256Signer.der(leading + high)
                == [0x30, 0x43, 0x02, 0x1E, 0x7F] + [UInt8](repeating: 0xFF, count: 29) + [0x02, 0x21, 0x00] + high)
    }

    @Test("every App Store signer refuses a key that is not P-256 and an empty identifier, with the same codes")
    func signerFailures() throws {
        let p384 = try EVPPrivateKey.generateEC(curve: "P-384").pkcs8PEM()
        let signers: [(String, ([UInt8], String) throws(AppleClientSecret.Failure) -> Void)] = [
            (
                "v2",
                { key, product throws(AppleClientSecret.Failure) in
                    _ = try PromotionalOfferV2Signature.make(
                        issuerID: "I", keyID: "K", bundleID: "B", privateKeyPEM: key, productID: product,
                        offerIdentifier: "o")
                }
            ),
            (
                "v1",
                { key, product throws(AppleClientSecret.Failure) in
                    _ = try PromotionalOfferV1Signature.make(
                        keyID: "K", bundleID: "B", privateKeyPEM: key, productID: product, offerIdentifier: "o")
                }
            ),
            (
                "intro",
                { key, product throws(AppleClientSecret.Failure) in
                    _ = try IntroductoryOfferEligibilitySignature.make(
                        issuerID: "I", keyID: "K", bundleID: "B", privateKeyPEM: key, productID: product,
                        allowIntroductoryOffer: true, transactionID: "1")
                }
            ),
            (
                "commerce",
                { key, product throws(AppleClientSecret.Failure) in
                    _ = try AdvancedCommerceInAppSignature.make(
                        issuerID: product.isEmpty ? "" : "I", keyID: "K", bundleID: "B", privateKeyPEM: key,
                        request: Array("{}".utf8))
                }
            ),
        ]
        for (name, sign) in signers {
            #expect(Self.failure { () throws(AppleClientSecret.Failure) in try sign(Self.pem, "p") } == nil, "\(name)")
            #expect(
                Self.failure { () throws(AppleClientSecret.Failure) in try sign(p384, "p") }?.code == .keyNotP256,
                "\(name)")
            #expect(
                Self.failure { () throws(AppleClientSecret.Failure) in try sign(Array("x".utf8), "p") }?.code
                    == .keyNotPKCS8, "\(name)")
            #expect(
                Self.failure { () throws(AppleClientSecret.Failure) in try sign(Self.pem, "") }?.code
                    == .missingIdentifier, "\(name)")
        }
    }
}
