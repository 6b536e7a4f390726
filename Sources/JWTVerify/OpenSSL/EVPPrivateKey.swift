internal import COpenSSL

/// Owns one OpenSSL private key, for signing Apple client secrets (and, through the tooling's
/// key making, test and benchmark tokens). Verification never needs one.
package final class EVPPrivateKey:
    @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The owned `EVP_PKEY *`.
    package let pointer: OpaquePointer

    /// Takes ownership of `pointer` (at +1): freed once, when this object goes.
    package init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// The key type only: `EVPPrivateKey(EC, <redacted>)`.
    package var description: String { "EVPPrivateKey(\(keyType), <redacted>)" }
    package var debugDescription: String { description }
    package var customMirror: Mirror {
        Mirror(self, children: ["keyType": keyType, "key": Redacted.marker], displayStyle: .class)
    }

    /// A private key read from PEM (PKCS#8, as in Apple's `.p8` files, or traditional).
    package static func pem(_ bytes: [UInt8]) throws(OpenSSLFailure) -> EVPPrivateKey {
        let pkey = bytes.withUnsafeBytes { copenssl_read_private_key_pem($0.baseAddress, $0.count) }
        guard let pkey else { throw OpenSSLFailure.drain("PEM private key") }
        return EVPPrivateKey(takingOwnershipOf: pkey)
    }

    /// The key's type as a JWK `kty`: "RSA", "EC" or "OKP".
    package var keyType: String { EVPPublicKey(borrowing: pointer).keyType }

    /// The public half as JWK members (`kty` and `n`/`e`, or `crv`/`x`/`y`, or `crv`/`x`), base64url.
    package func publicJWKMembers() -> [(String, String)] { EVPPublicKey(borrowing: pointer).jwkMembers() }

    /// Signs `message` with `algorithm`, returning the signature in JWS form (R‖S for ECDSA).
    package func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(OpenSSLFailure) -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLFailure.drain("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer? = nil
        guard EVP_DigestSignInit_ex(ctx, &pctx, algorithm.digest?.name, nil, nil, pointer, nil) == 1 else {
            throw OpenSSLFailure.drain("EVP_DigestSignInit_ex")
        }
        if algorithm.family == .rsaPSS, let digest = algorithm.digest {
            guard copenssl_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                copenssl_set_rsa_pss_saltlen(pctx, Int32(digest.size)) == 1
            else { throw OpenSSLFailure.drain("PSS parameters") }
        }
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, message, message.count) == 1 else {
            throw OpenSSLFailure.drain("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(ctx, &signature, &length, message, message.count) == 1 else {
            throw OpenSSLFailure.drain("EVP_DigestSign")
        }
        signature.removeSubrange(length...)
        guard case .ecdsa(_, let scalarSize) = algorithm.family else { return signature }
        var raw = [UInt8](repeating: 0, count: 2 * scalarSize)
        guard copenssl_ecdsa_der_to_raw(signature, signature.count, &raw, scalarSize) == 1 else {
            throw OpenSSLFailure.drain("ECDSA DER to R||S")
        }
        return raw
    }
}

extension EVPPublicKey {
    /// A public-key view sharing (and up-referencing) a private key's `EVP_PKEY`.
    convenience init(borrowing pointer: OpaquePointer) {
        EVP_PKEY_up_ref(pointer)
        self.init(takingOwnershipOf: pointer)
    }

    /// The public key of a PEM certificate (as in Google's x509 key maps).
    package static func certificate(pem: [UInt8]) throws(OpenSSLFailure) -> EVPPublicKey {
        let pkey = pem.withUnsafeBytes { copenssl_certificate_public_key($0.baseAddress, $0.count) }
        guard let pkey else { throw OpenSSLFailure.drain("PEM certificate") }
        return EVPPublicKey(takingOwnershipOf: pkey)
    }

    /// The key's type as a JWK `kty`: "RSA", "EC" or "OKP".
    package var keyType: String {
        if EVP_PKEY_is_a(pointer, "RSA") == 1 { return "RSA" }
        if EVP_PKEY_is_a(pointer, "EC") == 1 { return "EC" }
        return "OKP"
    }

    /// The public key as JWK members (`kty` and `n`/`e`, or `crv`/`x`/`y`, or `crv`/`x`), base64url.
    package func jwkMembers() -> [(String, String)] {
        switch keyType {
        case "RSA":
            return [
                ("kty", "RSA"), ("n", Base64URL.encode(bigNumber("n") ?? [])),
                ("e", Base64URL.encode(bigNumber("e") ?? [])),
            ]
        case "EC":
            let point = octets("pub") ?? []
            let half = max(0, (point.count - 1) / 2)
            let curve = bits == 256 ? "P-256" : bits == 384 ? "P-384" : "P-521"
            return [
                ("kty", "EC"), ("crv", curve), ("x", Base64URL.encode(point.dropFirst().prefix(half))),
                ("y", Base64URL.encode(point.dropFirst(1 + half))),
            ]
        default:
            return [("kty", "OKP"), ("crv", "Ed25519"), ("x", Base64URL.encode(octets("pub") ?? []))]
        }
    }
}
