internal import COpenSSL

/// An OCSP request for one certificate and its issuer (DER: the certificate's ID and a fresh
/// nonce), and the responder the certificate names: what an ``OCSPTransport`` carries.
struct OCSPRequest {
    /// The request, DER.
    let der: [UInt8]
    /// The first OCSP responder URL of the certificate's Authority Information Access.
    let responder: String

    /// Why no request could be made.
    enum Refusal: Error, Equatable {
        /// The certificate or its issuer is not one DER certificate.
        case notDER
        /// The certificate names no OCSP responder.
        case noResponder
        /// OpenSSL could not make it.
        case failure
    }

    /// The request for `certificate` issued by `issuer` (both DER).
    init(certificate: [UInt8], issuer: [UInt8]) throws(Refusal) {
        var made = copenssl_ocsp_request()
        let status = certificate.withUnsafeBufferPointer { cert in
            issuer.withUnsafeBufferPointer { issuer in
                copenssl_ocsp_request_new(cert.baseAddress, cert.count, issuer.baseAddress, issuer.count, &made)
            }
        }
        switch status {
        case Int32(COPENSSL_OCSP_REQUEST_OK.rawValue):
            defer {
                copenssl_free(made.der)
                copenssl_free(made.responder)
            }
            der = Array(UnsafeBufferPointer(start: made.der, count: Int(made.der_len)))
            responder = String(cString: made.responder)
        case Int32(COPENSSL_OCSP_REQUEST_NOT_DER.rawValue): throw .notDER
        case Int32(COPENSSL_OCSP_REQUEST_NO_RESPONDER.rawValue): throw .noResponder
        default: throw .failure
        }
    }
}
