import COpenSSL

/// Trust anchors in an OpenSSL `X509_STORE`, and the one check made against them: a leaf and an
/// intermediate validated up to one of the anchors by OpenSSL's own X.509 verification. Thread
/// safe: OpenSSL locks the store, and each check has a context of its own.
final class X509TrustStore: @unchecked Sendable {
    // Safety: `store` is filled in init and only read after (OpenSSL locks it for lookups).
    let store: OpaquePointer

    /// A failed construction: a certificate that is neither PEM nor DER.
    struct InvalidCertificate: Error {}

    /// A store holding each DER certificate of `anchors`.
    init(anchors: [[UInt8]]) throws(InvalidCertificate) {
        guard let store = copenssl_x509_store_new() else { preconditionFailure("X509_STORE_new failed") }
        self.store = store
        for der in anchors {
            let added = der.withUnsafeBytes {
                copenssl_x509_store_add_der(store, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
            }
            guard added == 1 else { throw InvalidCertificate() }
        }
    }

    deinit { copenssl_x509_store_free(store) }

    /// One certificate given as PEM or DER, as DER; `nil` when it is neither.
    static func der(ofCertificate data: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(data.count, 1) + 64)
        let length = data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes {
                copenssl_certificate_der(
                    input.baseAddress, input.count, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
            }
        }
        return length == 0 ? nil : Array(out[..<length])
    }

    /// What a chain check found.
    enum ChainVerdict {
        /// Leaf ← intermediate ← an anchor, each extension present: the leaf's P-256 key, the
        /// interval (seconds since the epoch) in which all three certificates are valid, and the
        /// anchor's DER.
        case trusted(EVPPublicKey, validFrom: Double, validUntil: Double, root: [UInt8])
        /// A certificate is not one DER certificate.
        case notDER(position: Int)
        /// Not a path to an anchor, or an extension missing, or not valid at the time: why.
        case untrusted(String)
        /// The leaf's key is not a P-256 key.
        case leafKeyNotP256
    }

    /// Validates `leaf` ← `intermediate` ← an anchor by every X.509 rule but the validity periods
    /// (``ChainVerdict/trusted(_:validFrom:validUntil:root:)`` returns them for the walk to judge
    /// at the evaluation time) with OpenSSL's X.509 verification (the intermediate the only other
    /// certificate offered: a root sent along is never used), then requires exactly that path,
    /// `leafExtension` on the leaf, `intermediateExtension` on the intermediate (dotted OIDs) and a
    /// P-256 leaf key.
    func verify(leaf: [UInt8], intermediate: [UInt8], leafExtension: String, intermediateExtension: String)
        -> ChainVerdict
    {
        var result = copenssl_chain_result()
        let status = leaf.withUnsafeBytes { leafBytes in
            intermediate.withUnsafeBytes { caBytes in
                copenssl_verify_chain(
                    store, leafBytes.bindMemory(to: UInt8.self).baseAddress, leafBytes.count,
                    caBytes.bindMemory(to: UInt8.self).baseAddress,
                    caBytes.count, leafExtension, intermediateExtension, &result)
            }
        }
        let which = ["the leaf", "the intermediate", "the root"][min(max(Int(result.depth), 0), 2)]
        switch status {
        case Int32(COPENSSL_CHAIN_OK.rawValue):
            let root = Array(UnsafeBufferPointer(start: result.root_der, count: Int(result.root_len)))
            copenssl_free(result.root_der)
            return .trusted(
                EVPPublicKey(takingOwnershipOf: result.leaf_key), validFrom: Double(result.valid_from),
                validUntil: Double(result.valid_until),
                root: root)
        case Int32(COPENSSL_CHAIN_NOT_DER.rawValue):
            return .notDER(position: Int(result.depth))
        case Int32(COPENSSL_CHAIN_UNTRUSTED.rawValue):
            return .untrusted("\(which): \(String(cString: copenssl_x509_error_string(result.x509_error)))")
        case Int32(COPENSSL_CHAIN_LEAF_EXTENSION.rawValue):
            return .untrusted("the leaf lacks extension \(leafExtension)")
        case Int32(COPENSSL_CHAIN_CA_EXTENSION.rawValue):
            return .untrusted("the intermediate lacks extension \(intermediateExtension)")
        case Int32(COPENSSL_CHAIN_SHAPE.rawValue):
            return .untrusted("the validated path is not leaf, intermediate, pinned root")
        case Int32(COPENSSL_CHAIN_LEAF_KEY.rawValue):
            return .leafKeyNotP256
        default:
            return .untrusted("OpenSSL could not check the chain")
        }
    }
}
