/// The check of one DPoP proof (RFC 9449 §4.3) against its request and the access token it came
/// with, in a fixed order, each failure a reason with a detail:
///
/// 1. the proof is a compact JWS no longer than the policy's token limit (`dpop_invalid`);
/// 2. its header's `typ` is `dpop+jwt`, byte for byte (§4.2 names that value);
/// 3. its `alg` is asymmetric and on ``DPoPPolicy/algorithms`` (never `none`, never `HS*`), and
///    the header has no `crit`;
/// 4. its header's `jwk` is a public key (no `d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`) that
///    may verify that `alg`;
/// 5. the signature verifies with that `jwk`;
/// 6. `htm` is the request's method, byte for byte (`dpop_mismatch`);
/// 7. `htu` is the request's URI, both without query and fragment and normalised
///    (``DPoPTargetURI``) (`dpop_invalid` when `htu` is not a URI, else `dpop_mismatch`);
/// 8. `iat` is within the window: no later than now plus the leeway, no earlier than now minus
///    the window and the leeway (`dpop_invalid`);
/// 9. `jti` is a non-empty string (`dpop_invalid`);
/// 10. `ath` is the base64url SHA-256 of the access token's bytes (`dpop_invalid` when missing,
///     `dpop_mismatch` when another);
/// 11. the token's `cnf.jkt` is the RFC 7638 thumbprint of the `jwk` (`dpop_mismatch`).
///
/// The header's `jwk` verifying the proof is **the one place where a key named by a token is
/// used**: a proof demonstrates possession of the key it carries, and what makes that key
/// trusted is the last step, its thumbprint bound into the access token the issuer signed. No
/// access token is ever verified with a key from its own header.
struct DPoPProof {
    /// The replay record the proof makes once every check passed: the SHA-256 of the key's
    /// thumbprint and the `jti`, and when it may be forgotten.
    let replayKey: SHA256Digest
    /// `iat` plus the window plus the leeway.
    let expiry: Double
    /// The RFC 7638 thumbprint of the proof's `jwk`.
    let thumbprint: String

    /// The private members of every key type: a proof's `jwk` must have none (§4.3 step 7).
    private static let privateMembers: [StaticString] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The proof value `dpop+jwt` (RFC 9449 §4.2), compared byte for byte.
    static let proofType = Array("dpop+jwt".utf8)

    /// Checks `request`'s proof against the request and `token` (the access token's bytes, as
    /// verified), bound by `thumbprint` (the token's `cnf.jkt`, `nil` when it has none). Without
    /// a token (a token request's proof, RFC 9449 §5), steps 10 and 11 are left out.
    static func check(
        _ request: DPoPRequest, token: UnsafeRawBufferPointer?, thumbprint: String?, policy: VerificationPolicy,
        now: Double, keys: DPoPKeyCache? = nil
    ) -> Result<DPoPProof, VerificationError> {
        var proof = request.proof
        return proof.withUTF8 { bytes in
            Result { () throws(VerificationError) in
                try check(
                    UnsafeRawBufferPointer(bytes), request, token: token, thumbprint: thumbprint, policy, now,
                    keys: keys)
            }
        }
    }

    static func invalid(_ detail: String) -> VerificationError {
        VerificationError(.dpopInvalid, detail: detail)
    }
    private static func mismatch(_ detail: String) -> VerificationError {
        VerificationError(.dpopMismatch, detail: detail)
    }

    /// Decodes one base64url segment of the proof and parses it as a JSON object.
    static func object(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ name: String)
        throws(VerificationError) -> JSONDocument
    {
        guard let decoded = Base64URL.decode(bytes[range]) else {
            throw invalid("the proof's \(name) is not strict base64url")
        }
        let document: JSONDocument
        switch JSONDocument.parse(decoded) {
        case .success(let parsed): document = parsed
        case .failure(let failure): throw invalid("the proof's \(name) is not JSON: \(failure.description)")
        }
        guard document.withRoot({ $0.kind == .object }) else { throw invalid("the proof's \(name) is not an object") }
        return document
    }

    private static func check(
        _ bytes: UnsafeRawBufferPointer, _ request: DPoPRequest, token: UnsafeRawBufferPointer?, thumbprint: String?,
        _ policy: VerificationPolicy, _ now: Double, keys: DPoPKeyCache?
    ) throws(VerificationError) -> DPoPProof {
        // 1. A compact JWS.
        guard bytes.count <= policy.maxTokenBytes else {
            throw invalid("the proof is \(bytes.count) octets; the limit is \(policy.maxTokenBytes)")
        }
        let jws: CompactJWS
        switch CompactJWS.split(bytes) {
        case .success(let split): jws = split
        case .failure(.encrypted): throw invalid("the proof is a JWE (5 segments), not a compact JWS")
        case .failure(.segmentCount(let count)): throw invalid("the proof has \(count) segment(s), not 3")
        }
        let header = try object(bytes, jws.header, "header")
        let (algorithm, key) = try header.withRoot { (root) throws(VerificationError) in
            try checkHeader(root, policy.dpop, keys: keys)
        }
        // 5. The signature, by the header's key.
        guard let signature = Base64URL.decode(bytes[jws.signature]),
            signature.withUnsafeBytes({
                key.key!.isValidSignature(
                    $0, over: UnsafeRawBufferPointer(rebasing: bytes[jws.signingInput]), algorithm: algorithm)
            })
        else { throw invalid("the proof's signature does not verify with the jwk of its header") }
        // The payload by the per-token parser (the flat scanner, jansson the arbiter), as a token's.
        guard let payload = Base64URL.decode(bytes[jws.payload]) else {
            throw invalid("the proof's payload is not strict base64url")
        }
        let reading = ClaimsCheck(
            request: request, token: token, key: key, thumbprint: thumbprint, policy: policy, now: now)
        let checked = payload.withUnsafeBytes { JSONObjectParser.parse($0, reading) }
        switch checked {
        case .success(let result): return try result.get()
        case .failure(.invalid(let message)): throw invalid("the proof's payload is not JSON: \(message)")
        case .failure(.notObject): throw invalid("the proof's payload is not an object")
        }
    }

    /// Steps 6–11 as a consumer of the parsed payload, whichever parser read it.
    private struct ClaimsCheck: JSONObjectConsumer {
        let request: DPoPRequest
        let token: UnsafeRawBufferPointer?
        let key: JWK
        let thumbprint: String?
        let policy: VerificationPolicy
        let now: Double

        func consume<Object: JSONObjectReading>(_ object: Object) -> Result<DPoPProof, VerificationError> {
            Result { () throws(VerificationError) in
                try DPoPProof.checkClaims(
                    object, request, token: token, key: key, thumbprint: thumbprint, policy, now)
            }
        }
    }

    /// Steps 2–4: `typ`, `alg`, `crit`, `jwk`.
    static func checkHeader(_ header: JSONNode, _ dpop: DPoPPolicy, keys: DPoPKeyCache?)
        throws(VerificationError) -> (
            SignatureAlgorithm, JWK
        )
    {
        // 2. typ.
        guard let typ = header.member("typ") else { throw invalid("the proof has no typ (dpop+jwt required)") }
        guard let typBytes = typ.stringBytes, typBytes.elementsEqual(proofType) else {
            throw invalid(
                "the proof's typ is " + (typ.stringBytes.map(JOSEHeader.printable) ?? "not a string")
                    + ", not \"dpop+jwt\"")
        }
        // 3. alg.
        guard let name = header.member("alg")?.string else {
            throw invalid("the proof's alg is missing or not a string")
        }
        let lowered = Array(name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 })
        if lowered == Array("none".utf8) { throw invalid("the proof's alg is none: a proof must be signed") }
        if lowered.starts(with: "hs".utf8) {
            throw invalid("the proof's alg \(Verifier.quoted(name)) is symmetric: a proof needs an asymmetric one")
        }
        guard let algorithm = SignatureAlgorithm(name: name) else {
            throw invalid("the proof's alg \(Verifier.quoted(name)) is not supported")
        }
        guard dpop.algorithms.contains(algorithm) else {
            let allowed = dpop.algorithms.map(\.name).sorted().joined(separator: ", ")
            throw invalid("the proof's alg \(algorithm.name) is not on the proof allow-list (\(allowed))")
        }
        if header.member("crit") != nil { throw invalid("the proof's header has crit: no extension is supported") }
        // 4. jwk: a public key for this alg.
        guard let node = header.member("jwk") else { throw invalid("the proof's header has no jwk") }
        guard node.kind == .object else { throw invalid("the proof's jwk is not an object") }
        for member in privateMembers where node.member(member) != nil {
            throw invalid("the proof's jwk has the private member \(member): only a public key may be sent")
        }
        let key = JWK(parsing: node, keyCache: keys)
        if let problem = key.mismatch(for: algorithm) { throw invalid("the proof's jwk cannot verify it: \(problem)") }
        guard key.key != nil, key.thumbprint != nil else { throw invalid("the proof's jwk does not import") }
        return (algorithm, key)
    }

    /// Steps 6–11 over the verified payload.
    private static func checkClaims<Claims: JSONObjectReading>(
        _ claims: Claims, _ request: DPoPRequest, token: UnsafeRawBufferPointer?, key: JWK, thumbprint: String?,
        _ policy: VerificationPolicy, _ now: Double
    ) throws(VerificationError) -> DPoPProof {
        // 6. htm.
        guard let htm = claims.member("htm")?.stringBytes else {
            throw invalid("the proof's htm is missing or not a string")
        }
        guard htm.elementsEqual(request.method.utf8) else {
            throw mismatch(
                "the proof's htm is \(JOSEHeader.printable(htm)); the request's method is "
                    + Verifier.quoted(request.method))
        }
        // 7. htu.
        guard let htuBytes = claims.member("htu")?.stringBytes else {
            throw invalid("the proof's htu is missing or not a string")
        }
        guard let htu = DPoPTargetURI(bytes: htuBytes) else {
            throw invalid("the proof's htu \(JOSEHeader.printable(htuBytes)) is not an absolute URI")
        }
        // A client names the request's URI as it sent it: the same bytes up to the query are the
        // same target, so the request's URI needs no normalising of its own.
        if !DPoPTargetURI.sameBeforeQuery(htuBytes, request.uri.utf8) {
            guard let target = DPoPTargetURI(request.uri) else {
                throw mismatch("the request's URI \(Verifier.quoted(request.uri)) is not an absolute URI")
            }
            guard htu.bytes == target.bytes else {
                throw mismatch(
                    "the proof's htu is \(Verifier.quoted(htu.description)); the request's URI is "
                        + Verifier.quoted(target.description) + " (both normalised, without query and fragment)")
            }
        }
        // 8. iat within the window.
        guard let iatNode = claims.member("iat"), iatNode.kind == .integer || iatNode.kind == .real,
            let iat = iatNode.number, iat.isFinite
        else { throw invalid("the proof's iat is missing or not a number") }
        let window = policy.dpop.proofWindow
        let leeway = policy.leeway
        if iat > now + leeway {
            throw invalid(
                "the proof's iat is \(Self.seconds(iat - now)) s ahead of now (leeway \(Self.seconds(leeway)) s)")
        }
        if iat < now - window - leeway {
            throw invalid(
                "the proof was made \(Self.seconds(now - iat)) s ago; the window is \(Self.seconds(window)) s "
                    + "plus \(Self.seconds(leeway)) s leeway")
        }
        // 9. jti.
        guard let jti = claims.member("jti")?.stringBytes, !jti.isEmpty else {
            throw invalid("the proof's jti is missing, empty or not a string")
        }
        let own = key.thumbprint!
        var keyed = Array(own.utf8) + [0]
        keyed += jti
        let replayKey = keyed.withUnsafeBytes { SHA256Digest(hashing: $0) }
        let proof = DPoPProof(replayKey: replayKey, expiry: iat + window + leeway, thumbprint: own)
        guard let token else { return proof }
        // 10. ath.
        guard let ath = claims.member("ath")?.stringBytes else {
            throw invalid("the proof's ath is missing, and a proof sent with an access token needs it")
        }
        let expected = Base64URL.encode(SHA256Digest(hashing: token).bytes)
        guard ath.elementsEqual(expected.utf8) else {
            throw mismatch("the proof's ath is not the base64url SHA-256 of the access token")
        }
        // 11. The token's cnf.jkt.
        guard let thumbprint else {
            throw mismatch("the token has no cnf.jkt: it is not bound to the proof's key (thumbprint \(own))")
        }
        guard exactlyEquals(thumbprint, own) else {
            throw mismatch(
                "the token's cnf.jkt \(Verifier.quoted(thumbprint)) is not the thumbprint of the proof's jwk (\(own))")
        }
        return proof
    }

    /// Seconds for details: whole when whole.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
