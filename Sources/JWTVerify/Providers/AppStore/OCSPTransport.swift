/// How App Store online checks reach an OCSP responder: a carrier of octets, nothing more.
///
/// JWTVerify makes each request (the certificate's ID and a fresh nonce) and judges each answer
/// itself: the issuer's signature, the nonce, the freshness, the certificate's status. A
/// transport only takes the request to the responder the certificate names and brings the
/// answer's body back. `JWTVerifyRemote`'s `HTTPOCSPTransport` speaks HTTP through libcurl, so
/// `JWTVerify` links no networking code; give it (or one of your own) to
/// ``AppStoreTrust/checkingRevocation(through:)``.
public protocol OCSPTransport: Sendable {
    /// POSTs `request` (a DER OCSP request, `application/ocsp-request`) to `responder` (the URL
    /// the certificate's Authority Information Access names) and returns the answer's body, or
    /// why none came, within `timeout` seconds. Called on the verifying thread, which it blocks.
    func exchange(_ request: [UInt8], with responder: String, timeout: Double) -> Result<
        [UInt8], OCSPTransportFailure
    >
}
