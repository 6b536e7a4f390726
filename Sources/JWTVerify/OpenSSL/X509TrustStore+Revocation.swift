internal import COpenSSL

extension X509TrustStore {
    /// What an OCSP responder said of a certificate.
    enum RevocationStatus: Equatable {
        case good
        case revoked(String)
        /// The responder does not know the certificate.
        case unknown(String)
        /// No answer that can be trusted (no responder named, none came, unsigned, replayed, stale).
        case unavailable(String)
    }

    /// Asks the OCSP responder `certificate` names (Authority Information Access) about it, as
    /// issued by `issuer` (both DER), through `transport` within `timeout` seconds; the answer
    /// must be signed by the issuer or its delegate (chaining to this store's anchors), carry the
    /// request's nonce when it echoes one, and be current.
    func revocationStatus(
        of certificate: [UInt8], issuer: [UInt8], through transport: any OCSPTransport, timeout: Double
    ) -> RevocationStatus {
        let request: OCSPRequest
        do {
            request = try OCSPRequest(certificate: certificate, issuer: issuer)
        } catch {
            switch error {
            case .noResponder: return .unavailable("the certificate names no OCSP responder")
            case .notDER: return .unavailable("a certificate is not DER")
            case .failure: return .unavailable("OpenSSL could not make the OCSP request")
            }
        }
        switch transport.exchange(request.der, with: request.responder, timeout: timeout) {
        case .failure(let failure):
            return .unavailable("the OCSP responder \(request.responder) did not answer: \(failure)")
        case .success(let answer):
            return judge(answer, to: request, certificate: certificate, issuer: issuer)
        }
    }

    /// What `answer` (DER, the body a transport brought back) says of `certificate`.
    private func judge(_ answer: [UInt8], to request: OCSPRequest, certificate: [UInt8], issuer: [UInt8])
        -> RevocationStatus
    {
        var detail = [CChar](repeating: 0, count: 256)
        let status = request.der.withUnsafeBufferPointer { req in
            answer.withUnsafeBufferPointer { answer in
                certificate.withUnsafeBufferPointer { cert in
                    issuer.withUnsafeBufferPointer { issuer in
                        detail.withUnsafeMutableBufferPointer { text in
                            copenssl_ocsp_check(
                                req.baseAddress, req.count, answer.baseAddress, answer.count, cert.baseAddress,
                                cert.count, issuer.baseAddress, issuer.count, store, text.baseAddress, text.count)
                        }
                    }
                }
            }
        }
        let words = String(decoding: detail.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case Int32(COPENSSL_OCSP_GOOD.rawValue): return .good
        case Int32(COPENSSL_OCSP_REVOKED.rawValue): return .revoked(words)
        case Int32(COPENSSL_OCSP_UNKNOWN.rawValue): return .unknown("the OCSP responder \(request.responder): \(words)")
        default: return .unavailable("the OCSP answer from \(request.responder): \(words)")
        }
    }
}
