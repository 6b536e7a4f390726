/// RFC 7638 JWK thumbprints: base64url(SHA-256) of the key's required public members, in
/// lexicographic order, as JSON without whitespace (§3.2, §3.3). What an access token's `cnf.jkt`
/// holds for the key its DPoP proofs must be signed with (RFC 9449 §6.1).
///
/// The members are the canonical base64url of the key's octets (RSA `n` and `e` without leading
/// zero octets, RFC 7518 §6.3.1), so two spellings of one key have one thumbprint.
public enum JWKThumbprint {
    /// An RSA key's: `{"e":…,"kty":"RSA","n":…}`.
    public static func rsa(modulus: [UInt8], exponent: [UInt8]) -> String {
        let n = Array(modulus.drop(while: { $0 == 0 }))
        let e = Array(exponent.drop(while: { $0 == 0 }))
        return of([("e", Base64URL.encode(e)), ("kty", "RSA"), ("n", Base64URL.encode(n))])
    }

    /// An EC key's: `{"crv":…,"kty":"EC","x":…,"y":…}`.
    public static func ec(curve: String, x: [UInt8], y: [UInt8]) -> String {
        of([("crv", curve), ("kty", "EC"), ("x", Base64URL.encode(x)), ("y", Base64URL.encode(y))])
    }

    /// An OKP key's (Ed25519): `{"crv":…,"kty":"OKP","x":…}`.
    public static func okp(curve: String, x: [UInt8]) -> String {
        of([("crv", curve), ("kty", "OKP"), ("x", Base64URL.encode(x))])
    }

    /// base64url(SHA-256(`{"name":"value",…}`)); `members` must already be in lexicographic order.
    package static func of(_ members: [(String, String)]) -> String {
        var text = OutputText()
        text.beginObject()
        for (name, value) in members {
            text.key(name)
            text.string(value)
        }
        text.endObject()
        return Base64URL.encode(MessageDigest.sha256.hash(text.bytes))
    }
}
