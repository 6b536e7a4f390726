internal import COpenSSL
internal import COpenSSL.KeyMaking
package import JWTVerify

/// Keys made here, for tests, benchmarks and sample data: the library product makes none.
extension EVPPrivateKey {
    /// A new RSA key of `bits` bits with the big-endian public `exponent` (65537 unless told).
    package static func generateRSA(bits: Int = 2048, exponent: [UInt8] = [1, 0, 1]) throws(OpenSSLFailure)
        -> EVPPrivateKey
    {
        let pkey = exponent.withUnsafeBufferPointer { copenssl_generate_rsa(UInt32(bits), $0.baseAddress, $0.count) }
        guard let pkey else { throw OpenSSLFailure.drain("RSA keygen") }
        return EVPPrivateKey(takingOwnershipOf: pkey)
    }

    /// A new EC key on `curve` (a JWK `crv`: "P-256", "P-384", "P-521").
    package static func generateEC(curve: String = "P-256") throws(OpenSSLFailure) -> EVPPrivateKey {
        guard let pkey = copenssl_generate_ec(curve) else { throw OpenSSLFailure.drain("EC keygen") }
        return EVPPrivateKey(takingOwnershipOf: pkey)
    }

    /// A new Ed25519 key.
    package static func generateEd25519() throws(OpenSSLFailure) -> EVPPrivateKey {
        guard let pkey = copenssl_generate_ed25519() else { throw OpenSSLFailure.drain("Ed25519 keygen") }
        return EVPPrivateKey(takingOwnershipOf: pkey)
    }

    /// The key as PKCS#8 PEM (as Apple's `.p8` files hold it).
    package func pkcs8PEM() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16384)
        let n = out.withUnsafeMutableBufferPointer { copenssl_private_key_pem(pointer, $0.baseAddress, $0.count) }
        return Array(out[..<n])
    }
}
