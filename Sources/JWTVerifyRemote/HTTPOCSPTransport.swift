public import JWTVerify

/// OCSP over HTTP, through this module's bounded libcurl transport: what App Store online checks
/// need, as `trust: AppStoreTrust.appleRootCAG3.checkingRevocation(through: HTTPOCSPTransport())`.
///
/// One POST of the DER request (`Content-Type: application/ocsp-request`) to the responder the
/// certificate names, plain http to any host (OCSP responders speak it; their answers are signed,
/// and JWTVerify checks the signature, the nonce and the freshness) or https; no redirect is
/// followed; the answer must be 200 `application/ocsp-response`. The body is capped at
/// ``maximumBytes`` decoded octets and the head at 64 KiB, the transfer stopped at the first octet
/// past either; a stall of ``connectTimeout`` seconds under one octet a second ends it, and no
/// exchange outlasts the time-out the check gives (5 s).
public struct HTTPOCSPTransport: OCSPTransport {
    /// Longest wait for the connection, and longest stall after it.
    public var connectTimeout: Double
    /// Largest answer accepted, in decoded octets.
    public var maximumBytes: Int

    /// A transport with these limits (defaults: 2 s, 1 MiB).
    public init(connectTimeout: Double = 2, maximumBytes: Int = 1 << 20) {
        self.connectTimeout = connectTimeout
        self.maximumBytes = maximumBytes
    }

    /// POSTs `request` to `responder` and returns the answer's body, or why none came.
    public func exchange(_ request: [UInt8], with responder: String, timeout: Double) -> Result<
        [UInt8], OCSPTransportFailure
    > {
        var outgoing = HTTPOutgoing(url: responder)
        outgoing.method = "POST"
        outgoing.body = request
        outgoing.setHeader("Content-Type", "application/ocsp-request")
        outgoing.setHeader("Accept", "application/ocsp-response")
        let limits = HTTPTransferLimits(
            connectTimeout: min(connectTimeout, timeout), totalTimeout: timeout, maximumBytes: maximumBytes,
            maximumRedirects: 0, plainHTTPAnywhere: true)
        return Self.body(of: HTTPTransfer.performBlocking(outgoing, limits: limits))
    }

    /// The body of a 200 `application/ocsp-response` reply; any other outcome as a failure.
    static func body(of outcome: Result<HTTPReply, HTTPTransferFailure>) -> Result<[UInt8], OCSPTransportFailure> {
        switch outcome {
        case .failure(let failure):
            return .failure(OCSPTransportFailure(failure.description))
        case .success(let reply) where reply.status != 200:
            return .failure(OCSPTransportFailure("HTTP status \(reply.status)"))
        case .success(let reply):
            let type = reply.header("Content-Type").map { HTTPHead.lowercased($0) } ?? ""
            let media = type.split(separator: ";", maxSplits: 1).first.map { $0.filter { $0 != " " } } ?? ""
            guard Array(media.utf8) == Array("application/ocsp-response".utf8) else {
                return .failure(
                    OCSPTransportFailure(
                        "the answer is \(type.isEmpty ? "untyped" : type), not application/ocsp-response"))
            }
            return .success(reply.body)
        }
    }
}
