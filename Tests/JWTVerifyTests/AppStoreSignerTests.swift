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
}
