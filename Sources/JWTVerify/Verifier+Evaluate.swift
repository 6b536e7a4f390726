#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Verifier {
    /// One token's way through the checks, in the normative order (vectors README §1.5): size,
    /// segments, header, header parameters, payload/signature decoding, key selection, key
    /// usability, signature, payload JSON, claim types, issuer, audience, exp, nbf, iat, nonce.
    ///
    /// All three segments are decoded into one temporary buffer the size of the token (on the
    /// stack for ordinary tokens); the signature covers the token's own `header.payload` bytes.
    func evaluate(_ token: UnsafeRawBufferPointer, rawNonce: UnsafeRawBufferPointer?, now: Double) -> Result<VerifiedToken, VerificationError> {
        guard token.count <= maxTokenBytes else {
            return .failure(VerificationError(.tooLarge, detail: "token is \(token.count) octets; the limit is \(maxTokenBytes)"))
        }
        let jws: CompactJWS
        switch CompactJWS.split(token) {
        case .success(let split): jws = split
        case .failure(.encrypted):
            return .failure(VerificationError(.unsupportedAlgorithm, detail: "token has 5 segments: JWE is not supported"))
        case .failure(.segmentCount(let count)):
            return .failure(VerificationError(.malformed, detail: "token has \(count) segment(s), not 3"))
        }
        return withUnsafeTemporaryAllocation(byteCount: max(token.count, 1), alignment: 8) { scratch in
            evaluate(token, jws, scratch: scratch, rawNonce: rawNonce, now: now)
        }
    }

    private func evaluate(
        _ token: UnsafeRawBufferPointer, _ jws: CompactJWS, scratch: UnsafeMutableRawBufferPointer,
        rawNonce: UnsafeRawBufferPointer?, now: Double
    ) -> Result<VerifiedToken, VerificationError> {
        let signed: SignedParts
        switch verifySignature(token, jws, scratch: scratch) {
        case .success(let parts): signed = parts
        case .failure(let error): return .failure(error)
        }
        let claims: RegisteredClaims
        switch Self.readObject(signed.payload, RegisteredClaimsReading(known: knownStrings), "payload") {
        case .success(let value): claims = value
        case .failure(let error): return .failure(error)
        }
        if let failure = check(claims, rawNonce: rawNonce, now: now) { return .failure(failure) }
        return .success(
            VerifiedToken(algorithm: signed.header.algorithm, keyID: signed.header.keyID, claims: claims, payload: Array(signed.payload)))
    }

    /// A token whose signature verified; `payload` points into the caller's scratch buffer.
    struct SignedParts {
        let header: JOSEHeader
        let payload: UnsafeRawBufferPointer
    }

    /// Steps 3–8: header, header parameters, payload/signature decoding, key selection, key
    /// usability and the signature itself. The payload is decoded but not parsed.
    func verifySignature(
        _ token: UnsafeRawBufferPointer, _ jws: CompactJWS, scratch: UnsafeMutableRawBufferPointer
    ) -> Result<SignedParts, VerificationError> {
        // Header: base64url, JSON object, parameters.
        guard let headerLength = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.header]), into: scratch) else {
            return .failure(VerificationError(.malformed, detail: "header segment is not strict base64url"))
        }
        let header: JOSEHeader
        switch Self.readObject(UnsafeRawBufferPointer(rebasing: scratch[..<headerLength]), JOSEHeaderValidation(allowList: allowList), "header") {
        case .success(let value): header = value
        case .failure(let error): return .failure(error)
        }

        // Payload and signature segments: strict base64url.
        let payloadBuffer = UnsafeMutableRawBufferPointer(rebasing: scratch[headerLength...])
        guard let payloadLength = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.payload]), into: payloadBuffer) else {
            return .failure(VerificationError(.malformed, detail: "payload segment is not strict base64url"))
        }
        let payload = UnsafeRawBufferPointer(rebasing: payloadBuffer[..<payloadLength])
        let signatureBuffer = UnsafeMutableRawBufferPointer(rebasing: payloadBuffer[payloadLength...])
        guard let signatureLength = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.signature]), into: signatureBuffer) else {
            return .failure(VerificationError(.malformed, detail: "signature segment is not strict base64url"))
        }
        let signature = UnsafeRawBufferPointer(rebasing: signatureBuffer[..<signatureLength])

        // Key: exact kid, or the only key; then whether it may verify this alg.
        let entry: JWK
        if let kid = header.keyID {
            guard let found = keys.key(withID: kid) else {
                return .failure(VerificationError(.unknownKeyID, detail: "no key has kid \(Self.quoted(kid))"))
            }
            entry = found
        } else {
            guard keys.keys.count == 1 else {
                return .failure(VerificationError(.unknownKeyID, detail: "token has no kid and the key set has \(keys.keys.count) keys"))
            }
            entry = keys.keys[0]
        }
        if let mismatch = entry.mismatch(for: header.algorithm) {
            return .failure(VerificationError(.keyAlgorithmMismatch, detail: mismatch))
        }
        guard let key = entry.key,
            key.isValidSignature(signature, over: UnsafeRawBufferPointer(rebasing: token[jws.signingInput]), algorithm: header.algorithm)
        else {
            return .failure(VerificationError(.badSignature, detail: "\(header.algorithm.name) signature does not verify with kid \(Self.quoted(entry.keyID ?? ""))"))
        }
        return .success(SignedParts(header: header, payload: payload))
    }

    /// Verifies only the JWS layer of `token` (size, structure, header, key, signature) and returns
    /// the algorithm and the decoded payload, without reading it as JWT claims. For JWS payloads
    /// that are not JWTs (RFC examples, Wycheproof) and for diagnostics; never for accepting sign-ins.
    package func verifySignatureOnly(_ token: [UInt8]) -> Result<(SignatureAlgorithm, [UInt8]), VerificationError> {
        guard token.count <= maxTokenBytes else {
            return .failure(VerificationError(.tooLarge, detail: "token is \(token.count) octets; the limit is \(maxTokenBytes)"))
        }
        return token.withUnsafeBytes { bytes in
            let jws: CompactJWS
            switch CompactJWS.split(bytes) {
            case .success(let split): jws = split
            case .failure(.encrypted): return .failure(VerificationError(.unsupportedAlgorithm, detail: "JWE"))
            case .failure(.segmentCount(let count)):
                return .failure(VerificationError(.malformed, detail: "token has \(count) segment(s), not 3"))
            }
            return withUnsafeTemporaryAllocation(byteCount: max(bytes.count, 1), alignment: 8) { scratch in
                verifySignature(bytes, jws, scratch: scratch).map { ($0.header.algorithm, Array($0.payload)) }
            }
        }
    }

    /// Parses a header or payload object and runs `consumer` on it; JSON that is invalid or not an
    /// object is `malformed`, naming `part`.
    private static func readObject<Consumer: JSONObjectConsumer, Value>(
        _ bytes: UnsafeRawBufferPointer, _ consumer: Consumer, _ part: String
    ) -> Result<Value, VerificationError> where Consumer.Output == Result<Value, VerificationError> {
        switch JSONObjectParser.parse(bytes, consumer) {
        case .success(let result): return result
        case .failure(.invalid(let message)):
            return .failure(VerificationError(.malformed, detail: "\(part) is not valid JSON: \(message)"))
        case .failure(.notObject):
            return .failure(VerificationError(.malformed, detail: "\(part) is not a JSON object"))
        }
    }

    /// The claim policy: issuer, audience, exp, nbf, iat, nonce — in that order.
    func check(_ claims: RegisteredClaims, rawNonce: UnsafeRawBufferPointer?, now: Double) -> VerificationError? {
        if let issuerBytes {
            guard let iss = claims.issuer else { return VerificationError(.issuerMismatch, detail: "iss is missing") }
            guard issuerBytes.contains(where: { Self.sameBytes(iss, $0) }) else {
                return VerificationError(.issuerMismatch, detail: "iss \(Self.quoted(iss)) is not \(Self.quoted(issuer ?? ""))")
            }
        }
        if let audienceBytes {
            guard let aud = claims.audience else { return VerificationError(.audienceMismatch, detail: "aud is missing") }
            let matches = aud.contains { member in audienceBytes.contains { Self.sameBytes(member, $0) } }
            guard matches else {
                return VerificationError(.audienceMismatch, detail: "aud \(aud.map(Self.quoted)) names no accepted audience")
            }
        }
        if let exp = claims.expiresAt, now >= exp + leeway {
            return VerificationError(.expired, detail: "expired at \(Self.number(exp)), \(Self.seconds(now - exp)) before now (leeway \(Self.seconds(leeway)))")
        }
        if let nbf = claims.notBefore, nbf > now + leeway {
            return VerificationError(.notYetValid, detail: "not valid before \(Self.number(nbf)), \(Self.seconds(nbf - now)) from now")
        }
        if let iat = claims.issuedAt, iat > now + leeway {
            return VerificationError(.issuedInFuture, detail: "issued at \(Self.number(iat)), \(Self.seconds(iat - now)) in the future")
        }
        if let rawNonce {
            guard var nonce = claims.nonce else {
                return VerificationError(.nonceMissing, detail: "a nonce was expected but the token has none")
            }
            let matches = nonce.withUTF8 { Nonce.matches(claim: UnsafeRawBufferPointer($0), rawNonce: rawNonce) }
            guard matches else {
                return VerificationError(.nonceMismatch, detail: "nonce is not the lowercase hex SHA-256 of the raw nonce")
            }
        }
        return nil
    }

    /// Whether `text`'s UTF-8 is exactly `bytes` (memcmp, not a generic element loop).
    static func sameBytes(_ text: String, _ bytes: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { own in
            guard own.count == bytes.count else { return false }
            guard let ownBase = own.baseAddress else { return true }
            return bytes.withUnsafeBytes { memcmp(ownBase, $0.baseAddress!, own.count) == 0 }
        }
    }

    /// Untrusted text quoted for a detail, cut at 60 characters.
    static func quoted(_ text: String) -> String {
        let cut = text.unicodeScalars.count > 60 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(60))) + "…" : text
        var json = JSONText()
        json.string(cut)
        return json.string
    }

    /// `12s` / `1.5s`.
    static func seconds(_ value: Double) -> String { number(value) + "s" }

    /// A NumericDate or duration without a spurious `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }
}
