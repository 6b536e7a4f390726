/// One HTTP request's DPoP proof (RFC 9449) and what the proof must name: the `DPoP` header's
/// value, the request's method and its URI, handed to ``Verifier/verify(_:dpop:nonce:at:)`` beside
/// the access token the request presented.
///
/// ```swift
/// let request = DPoPRequest(proof: dpopHeader, method: "GET", uri: "https://api.example.com/orders?page=2")
/// let token = try verifier.verify(accessToken, dpop: request)
/// ```
///
/// The method is compared with the proof's `htm` byte for byte; the URI with its `htu` after
/// both lose their query and fragment and are normalised (``DPoPTargetURI``). Behind a gateway,
/// the method and URI are the original request's (`X-Forwarded-Method`, `-Proto`, `-Host`,
/// `-Uri`), never the forward-auth subrequest's.
public struct DPoPRequest: Sendable, Hashable {
    /// The proof: the compact JWS of the request's `DPoP` header, exactly as received.
    public var proof: String
    /// The request's method (`GET`, `POST`), as sent: compared with `htm` byte for byte.
    public var method: String
    /// The request's absolute URI (`https://host/path?query`); its query and fragment are ignored.
    public var uri: String

    /// A request's proof, method and URI.
    public init(proof: String, method: String, uri: String) {
        self.proof = proof
        self.method = method
        self.uri = uri
    }
}
