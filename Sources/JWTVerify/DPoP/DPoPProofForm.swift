/// What a DPoP proof says of itself, and whether its form and signature hold, without a request
/// or an access token to check it against: how `audit` judges a proof it finds in a log, where
/// the request it came with, its time window and its token may be long gone.
///
/// The checks are ``DPoPProof``'s steps 1–5 (a compact JWS within the size limit; `typ`
/// `dpop+jwt` byte for byte; an asymmetric `alg` on the policy's proof allow-list and no `crit`;
/// a public `jwk` that may verify that `alg`; the signature by that `jwk`), then the form of the
/// claims: `jti` a non-empty string, `htm` and `htu` strings, `iat` a number (`dpop_invalid`
/// otherwise). `htm`, `htu`, `iat` and the window, `ath` and the binding are not checked: they
/// need the request. The claims are read whatever the verdict, for the record; they are the
/// proof's word only when ``error`` is `nil`.
package struct DPoPProofForm: Sendable {
    /// The first failing check, or `nil` when the form and the signature hold.
    package let error: VerificationError?
    /// The header's `alg` as written.
    package let algorithm: String?
    /// The RFC 7638 thumbprint of the header's `jwk`, when it imports.
    package let thumbprint: String?
    /// The `jti` claim as written, when a string.
    package let jti: String?
    /// The `htm` claim as written, when a string.
    package let htm: String?
    /// The `htu` claim as written, when a string.
    package let htu: String?
    /// The `iat` claim, when a number.
    package let issuedAt: Double?

    /// Judges `bytes` as a DPoP proof under `policy`'s token limit and proof allow-list.
    package init(_ bytes: UnsafeRawBufferPointer, policy: VerificationPolicy) {
        var algorithm: String? = nil
        var thumbprint: String? = nil
        var claims: (jti: String?, htm: String?, htu: String?, iat: Double?) = (nil, nil, nil, nil)
        let result = Result { () throws(VerificationError) in
            guard bytes.count <= policy.maxTokenBytes else {
                throw DPoPProof.invalid("the proof is \(bytes.count) octets; the limit is \(policy.maxTokenBytes)")
            }
            guard case .success(let jws) = CompactJWS.split(bytes) else {
                throw DPoPProof.invalid("the proof is not a compact JWS of 3 segments")
            }
            let header = try DPoPProof.object(bytes, jws.header, "header")
            algorithm = header.withRoot { $0.member("alg")?.string }
            thumbprint = header.withRoot { root in root.member("jwk").map { JWK(parsing: $0).thumbprint } ?? nil }
            if let decoded = Base64URL.decode(bytes[jws.payload]),
                case .success(let payload) = JSONDocument.parse(decoded)
            {
                claims = payload.withRoot { root in
                    (
                        root.member("jti")?.string, root.member("htm")?.string, root.member("htu")?.string,
                        root.member("iat").flatMap { $0.kind == .integer || $0.kind == .real ? $0.number : nil }
                    )
                }
            }
            let (signatureAlgorithm, key) = try header.withRoot { (root) throws(VerificationError) in
                try DPoPProof.checkHeader(root, policy.dpop, keys: nil)
            }
            guard let signature = Base64URL.decode(bytes[jws.signature]),
                signature.withUnsafeBytes({
                    key.key!.isValidSignature(
                        $0, over: UnsafeRawBufferPointer(rebasing: bytes[jws.signingInput]),
                        algorithm: signatureAlgorithm)
                })
            else { throw DPoPProof.invalid("the proof's signature does not verify with the jwk of its header") }
            _ = try DPoPProof.object(bytes, jws.payload, "payload")
            guard let jti = claims.jti, !jti.utf8.isEmpty else {
                throw DPoPProof.invalid("the proof's jti is missing, empty or not a string")
            }
            guard claims.htm != nil else { throw DPoPProof.invalid("the proof's htm is missing or not a string") }
            guard claims.htu != nil else { throw DPoPProof.invalid("the proof's htu is missing or not a string") }
            guard let iat = claims.iat, iat.isFinite else {
                throw DPoPProof.invalid("the proof's iat is missing or not a number")
            }
        }
        if case .failure(let error) = result { self.error = error } else { self.error = nil }
        self.algorithm = algorithm
        self.thumbprint = thumbprint
        (jti, htm, htu, issuedAt) = claims
    }
}
