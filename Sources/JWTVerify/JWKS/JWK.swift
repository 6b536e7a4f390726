/// One entry of a key set (RFC 7517), as JWTVerify understood it.
///
/// Only public members are read (`kty`, `kid`, `use`, `key_ops`, `alg`, `n`/`e`, `crv`/`x`/`y`);
/// private members such as `d` are never looked at. An entry that cannot verify anything (`use`
/// other than `sig`, `key_ops` without `verify`, an unknown `kty` or `crv`, an RSA modulus under
/// 2048 bits, material that does not import) is kept with ``unusableReason`` set, so a token
/// naming its `kid` is rejected as `key_alg_mismatch` instead of being verified by another key.
public struct JWK: Sendable {
    /// `kid`, when it is a string.
    public let keyID: String?
    /// `kty` ("RSA", "EC", "OKP", ...), when it is a string.
    public let keyType: String?
    /// `crv` for EC and OKP keys.
    public let curve: String?
    /// The JWK's own `alg`, which the token's header must then equal.
    public let algorithm: String?
    /// `use`, when present.
    public let use: String?
    /// `key_ops`, when present.
    public let keyOperations: [String]?
    /// Key size in bits (the RSA modulus, the EC field, 256 for Ed25519), when the key imported.
    public let bits: Int?
    /// Why this entry can verify nothing, or `nil` when it is usable.
    public let unusableReason: String?
    /// The RFC 7638 thumbprint (base64url SHA-256 of the canonical public members), when computable.
    public let thumbprint: String?

    /// The imported OpenSSL key, when usable.
    package let key: EVPPublicKey?
    /// The public material (RSA `n`‖`e`, EC/OKP point), to tell a repeated key from a conflicting one.
    let material: [UInt8]

    /// Why this key may not verify a token whose header says `algorithm`, or `nil` when it may.
    func mismatch(for algorithm: SignatureAlgorithm) -> String? {
        if let unusableReason { return unusableReason }
        guard exactlyEquals(keyType, algorithm.keyType) else {
            // RSA, EC, OKP: all "an"
            return "\(algorithm.name) needs an \(algorithm.keyType) key; this key is \(keyType ?? "untyped")"
        }
        if let required = algorithm.curve, !exactlyEquals(curve, required) {
            return "\(algorithm.name) needs curve \(required); this key is on \(curve ?? "no curve")"
        }
        if let own = self.algorithm, !exactlyEquals(own, algorithm.name) {
            return "the key is for \(own), the token says \(algorithm.name)"
        }
        return nil
    }

    /// Whether this key may verify tokens whose header says `algorithm`.
    public func mayVerify(_ algorithm: SignatureAlgorithm) -> Bool { mismatch(for: algorithm) == nil }

    /// Whether two entries describe the same key the same way, member for member, byte for byte.
    func isSameKey(as other: JWK) -> Bool {
        exactlyEquals(keyType, other.keyType) && exactlyEquals(curve, other.curve) && material == other.material
            && exactlyEquals(algorithm, other.algorithm) && exactlyEquals(use, other.use)
            && exactlyEquals(keyOperations, other.keyOperations) && exactlyEquals(unusableReason, other.unusableReason)
    }

    /// An entry for a certificate that could not be read.
    init(unusableKeyID kid: String) {
        self.init(
            keyID: kid, keyType: nil, curve: nil, algorithm: nil, use: "sig", keyOperations: nil, bits: nil,
            unusableReason: "the certificate could not be read", thumbprint: nil, key: nil, material: [])
    }

    /// An entry that can verify nothing, for `reason`.
    init(unusable reason: String, like entry: JWK) {
        self.init(
            keyID: entry.keyID, keyType: entry.keyType, curve: entry.curve, algorithm: entry.algorithm,
            use: entry.use, keyOperations: entry.keyOperations, bits: entry.bits, unusableReason: reason,
            thumbprint: entry.thumbprint, key: nil, material: entry.material)
    }

    init(
        keyID: String?, keyType: String?, curve: String?, algorithm: String?, use: String?,
        keyOperations: [String]?, bits: Int?, unusableReason: String?, thumbprint: String?,
        key: EVPPublicKey?, material: [UInt8]
    ) {
        self.keyID = keyID
        self.keyType = keyType
        self.curve = curve
        self.algorithm = algorithm
        self.use = use
        self.keyOperations = keyOperations
        self.bits = bits
        self.unusableReason = unusableReason
        self.thumbprint = thumbprint
        self.key = key
        self.material = material
    }
}

extension JWK {
    /// Whether `signature` (JWS form) is a valid `algorithm` signature of `message` by this key,
    /// applying the same binding rules as token verification. For primitive test vectors.
    package func verifies(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        guard mismatch(for: algorithm) == nil, let key else { return false }
        return signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in key.isValidSignature(sig, over: msg, algorithm: algorithm) }
        }
    }
}
