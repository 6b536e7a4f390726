/// The one ES256 signing path for what Apple wants from a backend (the Sign in with Apple client
/// secret, the App Store Server API token, the App Store's signed requests and offers): an Apple
/// `.p8` key, read as PKCS#8 PEM and checked to be EC P-256, that signs JWTs and raw messages.
///
/// ECDSA nonces are random (OpenSSL's default): RFC 6979 deterministic nonces need OpenSSL 3.2's
/// `nonce-type` parameter, and this package builds on OpenSSL 3.0.
struct AppleES256Signer {
    /// The checked P-256 private key.
    let key: EVPPrivateKey

    /// Reads and checks the key: ``AppleClientSecret/Failure/Code/keyNotPKCS8`` when the bytes are
    /// not a PEM private key, ``AppleClientSecret/Failure/Code/keyNotP256`` when it is another kind.
    init(privateKeyPEM: [UInt8]) throws(AppleClientSecret.Failure) {
        let key: EVPPrivateKey
        // OpenSSL's decoder text ("DECODER routines::unsupported") is drained and not shown.
        do { key = try EVPPrivateKey.pem(privateKeyPEM) } catch {
            throw AppleClientSecret.Failure(.keyNotPKCS8, AppleClientSecret.notPKCS8)
        }
        guard exactlyEquals(key.keyType, "EC"),
            key.publicJWKMembers().contains(where: { exactlyEquals($0.0, "crv") && exactlyEquals($0.1, "P-256") })
        else {
            throw AppleClientSecret.Failure(.keyNotP256, "the key is not an EC P-256 key (Apple's .p8 keys are)")
        }
        self.key = key
    }

    /// A compact ES256 JWS: header `{"alg":"ES256","kid":keyID}` (and `"typ":"JWT"` when `typed`),
    /// the claims `writeClaims` writes as the members of one object, in its order.
    func jwt(
        keyID: String, typed: Bool, writeClaims: (inout OutputText) -> Void
    ) throws(AppleClientSecret.Failure) -> String {
        var header = OutputText()
        header.beginObject()
        header.key("alg")
        header.string("ES256")
        header.key("kid")
        header.string(keyID)
        if typed {
            header.key("typ")
            header.string("JWT")
        }
        header.endObject()
        var claims = OutputText()
        claims.beginObject()
        writeClaims(&claims)
        claims.endObject()
        let signingInput = Base64URL.encode(header.bytes) + "." + Base64URL.encode(claims.bytes)
        return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
    }

    /// The ES256 signature of `message` in JWS form (R‖S, 64 octets).
    func sign(_ message: [UInt8]) throws(AppleClientSecret.Failure) -> [UInt8] {
        do { return try key.sign(message, algorithm: .es256) } catch {
            throw AppleClientSecret.Failure(.signingFailed, "signing failed: \(error)")
        }
    }

    /// The ECDSA P-256 SHA-256 signature of `message` in DER form (X9.62 `ECDSA-Sig-Value`), as
    /// the original promotional-offer signature carries it.
    func signDER(_ message: [UInt8]) throws(AppleClientSecret.Failure) -> [UInt8] {
        let raw = try sign(message)
        return Self.der(raw)
    }

    /// `SEQUENCE { INTEGER r, INTEGER s }` from R‖S: each half without its leading zero octets,
    /// with one zero octet put back when its top bit is set (a DER INTEGER is signed).
    static func der(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ half: ArraySlice<UInt8>) -> [UInt8] {
            var magnitude = Array(half.drop { $0 == 0 })
            if magnitude.isEmpty || magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
            return [0x02, UInt8(magnitude.count)] + magnitude
        }
        let half = raw.count / 2
        let body = integer(raw[..<half]) + integer(raw[half...])
        // Two P-256 integers are at most 2 × 35 octets: the short length form always fits.
        return [0x30, UInt8(body.count)] + body
    }

    /// Standard base64 with padding (RFC 4648 §4), as Apple's promotional-offer signature and
    /// Advanced Commerce request carry their octets.
    static func standardBase64(_ bytes: [UInt8]) -> String {
        var text = Array(Base64URL.encode(bytes).utf8)
        for index in text.indices {
            if text[index] == UInt8(ascii: "-") {
                text[index] = UInt8(ascii: "+")
            } else if text[index] == UInt8(ascii: "_") {
                text[index] = UInt8(ascii: "/")
            }
        }
        while text.count % 4 != 0 { text.append(UInt8(ascii: "=")) }
        return String(decoding: text, as: UTF8.self)
    }
}
