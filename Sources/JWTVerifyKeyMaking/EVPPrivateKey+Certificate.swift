internal import COpenSSL
internal import COpenSSL.KeyMaking
package import JWTVerify

extension EVPPrivateKey {
    /// A certificate (DER) for this key's public half, named CN=`commonName`, issued by `issuer`
    /// (its DER and key; `nil`: self-signed with this key), valid from `from` to `until` (seconds
    /// since the epoch), a CA when `isCA`, carrying `extensionOID` (an ASN.1 NULL) when given. For
    /// generated benchmark corpora and tests: chains shaped like Apple's App Store chain.
    package func certificate(
        commonName: String, issuer: (der: [UInt8], key: EVPPrivateKey)? = nil, from: Double, until: Double, isCA: Bool,
        extensionOID: String? = nil, serial: Int
    ) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 4096)
        let signer = issuer?.key.pointer ?? pointer
        let length = out.withUnsafeMutableBufferPointer { buffer in
            (issuer?.der ?? []).withUnsafeBufferPointer { issuerDER in
                copenssl_make_certificate(
                    pointer, commonName, issuer == nil ? nil : issuerDER.baseAddress, issuerDER.count, signer,
                    Int64(from), Int64(until),
                    isCA ? 1 : 0, extensionOID, serial, buffer.baseAddress, buffer.count)
            }
        }
        return length == 0 ? nil : Array(out[..<length])
    }
}
