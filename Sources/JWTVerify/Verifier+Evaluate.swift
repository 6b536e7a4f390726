#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Verifier {
    /// One token's way through the checks, in the normative order (vectors README §1.5): size,
    /// segments, header, header parameters, payload/signature decoding, key selection, key
    /// usability, signature, payload JSON, claim types, issuer, audience, exp, nbf, iat, nonce,
    /// and then the policy's provider rules over the payload already parsed.
    ///
    /// All three segments are decoded into one temporary buffer the size of the token (on the
    /// stack for ordinary tokens); the signature covers the token's own `header.payload` bytes.
    /// With `details` (reports), what was read on the way is written there too, and for a rejected
    /// token what could be read without trust; the library path passes `nil` and pays nothing.
    func walk(
        _ token: UnsafeRawBufferPointer, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime,
        details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Result<VerifiedToken, VerificationError> {
        if policy.rules.kind == .appleNotification, token.first == UInt8(ascii: "{"),
            let unwrapped = NotificationBody.evaluate(token, { walk($0, rawNonce: rawNonce, time: time, details: details) })
        {
            return unwrapped
        }
        guard token.count <= policy.maxTokenBytes else {
            return .failure(VerificationError(.tooLarge, detail: "token is \(token.count) octets; the limit is \(policy.maxTokenBytes)"))
        }
        if let cache, token.count <= cache.configuration.maxTokenBytes {
            return cachedWalk(token, cache: cache, rawNonce: rawNonce, time: time, details: details)
        }
        return uncachedWalk(token, rawNonce: rawNonce, time: time, details: details)
    }

    /// Through the verified-token cache: a hit re-runs every check that depends on time, the call
    /// or the key set's current state; a miss walks the whole way and stores a full success.
    private func cachedWalk(
        _ token: UnsafeRawBufferPointer, cache: VerifiedTokenCache, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime,
        details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Result<VerifiedToken, VerificationError> {
        let hash = cache.hash(token)
        if let entry = cache.lookup(token, hash: hash) {
            if keyStillVerifies(entry) { return recheck(entry, rawNonce: rawNonce, time: time, details: details) }
            cache.invalidate(token, hash: hash)
        }
        // A miss reads what a later report-mode hit must show (email_verified) on the same pass.
        var local = VerificationOutcome(.failure(VerificationError(.malformed)))
        local.peeksRejected = false
        let result =
            if let details { uncachedWalk(token, rawNonce: rawNonce, time: time, details: details) }
            else { uncachedWalk(token, rawNonce: rawNonce, time: time, details: &local) }
        if case .success(let verified) = result, let slot = slot(for: verified) {
            let emailVerified = details?.pointee.emailVerified ?? local.emailVerified
            cache.insert(
                token, hash: hash, entry: VerifiedTokenCache.Entry(verified: verified, keyIdentity: slot.identity, emailVerified: emailVerified))
        }
        return result
    }

    /// The key slot a verified token names: its `kid`'s, or the only key's.
    private func slot(for verified: VerifiedToken) -> KeySlot? {
        if let kid = verified.keyID { return keys.index(ofKeyID: kid).map { keys.slots[$0] } }
        return keys.slots.count == 1 ? keys.slots[0] : nil
    }

    /// Whether the key that verified a cached token is still in the key set under its `kid`,
    /// unchanged, and still allowed this `alg`.
    private func keyStillVerifies(_ entry: VerifiedTokenCache.Entry) -> Bool {
        guard let slot = slot(for: entry.verified) else { return false }
        return slot.identity == entry.keyIdentity && slot.allows(entry.verified.algorithm)
    }

    /// A cache hit: the time, nonce and provider rules of this call, in the walk's order.
    private func recheck(
        _ entry: VerifiedTokenCache.Entry, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime,
        details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Result<VerifiedToken, VerificationError> {
        let verified = entry.verified
        if let details {
            details.pointee.emailVerified = entry.emailVerified
        }
        let now: Double
        switch evaluationTime(time, claims: verified.claims) {
        case .success(let instant): now = instant
        case .failure(let error): return .failure(error)
        }
        details?.pointee.evaluatedAt = now
        let provider = verified.provider
        var failure = checkTimeAndNonce(verified.claims, rawNonce: rawNonce, now: now, nonceSupported: provider.nonceSupported)
        if failure == nil, policy.rules.kind != .none { failure = policy.rules.check(provider, now: now, leeway: policy.leeway) }
        guard let failure else { return .success(verified) }
        if let details {
            // A rejected repeat is reported like any rejected token: with its claims, alg and kid.
            details.pointee.algorithm = verified.algorithm.name
            details.pointee.keyID = verified.keyID
            details.pointee.claims = verified.claims
        }
        return .failure(failure)
    }

    /// The whole walk, after the size check.
    private func uncachedWalk(
        _ token: UnsafeRawBufferPointer, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime,
        details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Result<VerifiedToken, VerificationError> {
        let jws: CompactJWS
        switch CompactJWS.split(token) {
        case .success(let split): jws = split
        case .failure(.encrypted):
            return .failure(VerificationError(.unsupportedAlgorithm, detail: "token has 5 segments: JWE is not supported"))
        case .failure(.segmentCount(let count)):
            return .failure(VerificationError(.malformed, detail: "token has \(count) segment(s), not 3"))
        }
        // This thread's buffer, without a closure (see TokenScratch); a temporary one otherwise.
        let contexts = ThreadContexts.current
        if let scratch = contexts.scratch.lend(byteCount: token.count) {
            defer { contexts.scratch.giveBack() }
            return walk(token, jws, scratch: scratch, contexts: contexts, rawNonce: rawNonce, time: time, details: details)
        }
        return withUnsafeTemporaryAllocation(byteCount: max(token.count, 1), alignment: 8) { scratch in
            walk(token, jws, scratch: scratch, contexts: contexts, rawNonce: rawNonce, time: time, details: details)
        }
    }

    private func walk(
        _ token: UnsafeRawBufferPointer, _ jws: CompactJWS, scratch: UnsafeMutableRawBufferPointer, contexts: ThreadContexts,
        rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Result<VerifiedToken, VerificationError> {
        let signed: SignedParts
        switch verifySignature(token, jws, scratch: scratch, contexts: contexts, details: details) {
        case .signed(let parts): signed = parts
        case .failed(let failure):
            if let details, details.pointee.peeksRejected {
                peek(token, jws, decoded: failure.payload, scratch: scratch, into: details, time: time)
            }
            return .failure(failure.error)
        }

        var read: PayloadRead
        switch JSONObjectParser.parse(signed.payload, PayloadReading(rules: policy.rules, report: details != nil, captured: capturedClaimBytes)) {
        case .success(let value): read = value
        case .failure(let problem):
            if let details { details.pointee.evaluatedAt = evaluationInstant(time, issuedAt: nil) }
            switch problem {
            case .invalid(let message): return .failure(VerificationError(.malformed, detail: "payload is not valid JSON: \(message)"))
            case .notObject: return .failure(VerificationError(.malformed, detail: "payload is not a JSON object"))
            }
        }
        if let error = read.claimsError {
            if let details {
                details.pointee.emailVerified = read.emailVerified
                details.pointee.claims = read.lenient ?? RegisteredClaims()
                details.pointee.evaluatedAt = evaluationInstant(time, issuedAt: details.pointee.claims.issuedAt)
            }
            return .failure(error)
        }
        details?.pointee.emailVerified = read.emailVerified
        let result = checkClaims(&read, signed, rawNonce: rawNonce, time: time, details: details)
        // A report shows a rejected token's claims from here; a verified one's come with the token.
        if let details, case .failure = result { details.pointee.claims = read.takeClaims() }
        return result
    }

    /// Steps 10–17 over claims already read (and type-checked): the evaluation time, the generic
    /// checks, the provider's rules, and the verified token, which takes the claims out of `read`.
    private func checkClaims(
        _ read: inout PayloadRead, _ signed: SignedParts, rawNonce: UnsafeRawBufferPointer?,
        time: EvaluationTime, details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Result<VerifiedToken, VerificationError> {
        let now: Double
        switch evaluationTime(time, claims: read.claims) {
        case .success(let instant): now = instant
        case .failure(let error): return .failure(error)
        }
        details?.pointee.evaluatedAt = now
        var nonceSupported: Bool? = nil
        if case .success(let provider)? = read.provider { nonceSupported = provider.nonceSupported }
        if let failure = check(read.claims, rawNonce: rawNonce, now: now, nonceSupported: nonceSupported) { return .failure(failure) }
        var providerClaims: ProviderClaims? = nil
        switch read.provider {
        case nil: break
        case .success(let value)?:
            if let failure = policy.rules.check(value, now: now, leeway: policy.leeway) { return .failure(failure) }
            providerClaims = value
        case .failure(let error)?:
            return .failure(error)
        }
        return .success(
            VerifiedToken(
                algorithm: signed.header.algorithm, keyID: signed.header.keyID, claims: read.takeClaims(), provider: providerClaims,
                payload: Array(signed.payload), captured: read.captured))
    }

    /// The time verified claims are checked at; evaluating at `iat` needs one.
    private func evaluationTime(_ time: EvaluationTime, claims: RegisteredClaims) -> Result<Double, VerificationError> {
        guard let instant = evaluationInstant(time, issuedAt: claims.issuedAt) else {
            return .failure(VerificationError(.claimType, detail: "evaluation at the token's iat: the token has no usable iat"))
        }
        return .success(instant)
    }

    /// The time a token is evaluated at, `nil` when it is to be its missing `iat`.
    private func evaluationInstant(_ time: EvaluationTime, issuedAt: Double?) -> Double? {
        switch time {
        case .clock: policy.clock()
        case .fixed(let instant): instant
        case .issuedAt: issuedAt
        }
    }

    /// Fills a report with what the payload says, read without trust: `decoded` when the payload
    /// segment was already decoded, else decoded now into `scratch`.
    private func peek(
        _ token: UnsafeRawBufferPointer, _ jws: CompactJWS, decoded: UnsafeRawBufferPointer?, scratch: UnsafeMutableRawBufferPointer,
        into details: UnsafeMutablePointer<VerificationOutcome>, time: EvaluationTime
    ) {
        var payload = decoded
        if payload == nil, let length = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.payload]), into: scratch) {
            payload = UnsafeRawBufferPointer(rebasing: scratch[..<length])
        }
        if let payload, case .success(let read) = JSONObjectParser.parse(payload, UnverifiedPayloadReading()) {
            details.pointee.claims = read.claims
            details.pointee.emailVerified = read.emailVerified
        }
        details.pointee.evaluatedAt = evaluationInstant(time, issuedAt: details.pointee.claims.issuedAt)
    }

    /// A token whose signature verified; `payload` points into the caller's scratch buffer.
    struct SignedParts {
        let header: JOSEHeader
        let payload: UnsafeRawBufferPointer
    }

    /// Why the JWS layer failed, with the decoded payload when it got that far (a borrowed view of
    /// the scratch buffer: not an `Error`, which would have to be `Sendable`).
    struct SignatureFailure {
        let error: VerificationError
        var payload: UnsafeRawBufferPointer? = nil
    }

    /// The JWS layer's verdict.
    enum SignatureStep {
        case signed(SignedParts)
        case failed(SignatureFailure)
    }

    /// Steps 3–8: header, header parameters, payload/signature decoding, key selection, key
    /// usability and the signature itself. The payload is decoded but not parsed. With `details`,
    /// the header's `alg` and `kid` as written go there. `contexts` are this thread's.
    func verifySignature(
        _ token: UnsafeRawBufferPointer, _ jws: CompactJWS, scratch: UnsafeMutableRawBufferPointer, contexts: ThreadContexts,
        details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> SignatureStep {
        // Header: base64url, JSON object, parameters; or, for a header text this thread has
        // verified under this verifier, what that gave (the same header and key).
        let headerSegment = UnsafeRawBufferPointer(rebasing: token[jws.header])
        let header: JOSEHeader
        let remembered = contexts.headers.lookup(headerSegment, verifier: identity)
        var headerLength = 0
        if let remembered {
            header = remembered.header
            if let details {
                details.pointee.algorithm = header.algorithm.name
                details.pointee.keyID = header.keyID
            }
        } else {
            guard let length = Base64URL.decode(headerSegment, into: scratch) else {
                return .failed(SignatureFailure(error: VerificationError(.malformed, detail: "header segment is not strict base64url")))
            }
            headerLength = length
            switch JSONObjectParser.parse(
                UnsafeRawBufferPointer(rebasing: scratch[..<headerLength]), HeaderReading(allowList: allowList, report: details != nil))
            {
            case .success(let read):
                if let details {
                    details.pointee.algorithm = read.algorithm
                    details.pointee.keyID = read.keyID
                }
                switch read.header {
                case .success(let value): header = value
                case .failure(let error): return .failed(SignatureFailure(error: error))
                }
            case .failure(.invalid(let message)):
                return .failed(SignatureFailure(error: VerificationError(.malformed, detail: "header is not valid JSON: \(message)")))
            case .failure(.notObject):
                return .failed(SignatureFailure(error: VerificationError(.malformed, detail: "header is not a JSON object")))
            }
        }

        // Payload and signature segments: strict base64url.
        let payloadBuffer = UnsafeMutableRawBufferPointer(rebasing: scratch[headerLength...])
        guard let payloadLength = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.payload]), into: payloadBuffer) else {
            return .failed(SignatureFailure(error: VerificationError(.malformed, detail: "payload segment is not strict base64url")))
        }
        let payload = UnsafeRawBufferPointer(rebasing: payloadBuffer[..<payloadLength])
        let signatureBuffer = UnsafeMutableRawBufferPointer(rebasing: payloadBuffer[payloadLength...])
        guard let signatureLength = Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[jws.signature]), into: signatureBuffer) else {
            return .failed(
                SignatureFailure(error: VerificationError(.malformed, detail: "signature segment is not strict base64url"), payload: payload))
        }
        let signature = UnsafeRawBufferPointer(rebasing: signatureBuffer[..<signatureLength])

        let index: Int
        if let remembered {
            index = remembered.keyIndex
        } else {
            switch keyIndex(for: header) {
            case .success(let found): index = found
            case .failure(let error): return .failed(SignatureFailure(error: error, payload: payload))
            }
            contexts.headers.remember(headerSegment, verifier: identity, header: header, keyIndex: index)
        }
        let slot = keys.slots[index]
        let valid = slot.key?._withUnsafeGuaranteedRef { key in
            isValidSignature(key, signature, token, jws, header.algorithm, details: details)
        } ?? false
        guard valid else {
            return .failed(
                SignatureFailure(
                    error: VerificationError(
                        .badSignature,
                        detail: "\(header.algorithm.name) signature does not verify with kid \(Self.quoted(keys.keys[index].keyID ?? ""))"),
                    payload: payload))
        }
        return .signed(SignedParts(header: header, payload: payload))
    }

    /// Steps 7 and 8, key selection and key usability: the exact `kid`, or the only key; then
    /// whether it may verify this `alg`. The precomputed slot answers both without copying the
    /// entry; only a refusal reads the entry for its reason.
    func keyIndex(for header: JOSEHeader) -> Result<Int, VerificationError> {
        let index: Int
        if let kid = header.keyID {
            guard let found = keys.index(ofKeyID: kid) else {
                return .failure(VerificationError(.unknownKeyID, detail: "no key has kid \(Self.quoted(kid))"))
            }
            index = found
        } else {
            guard keys.slots.count == 1 else {
                return .failure(VerificationError(.unknownKeyID, detail: "token has no kid and the key set has \(keys.keys.count) keys"))
            }
            index = 0
        }
        guard keys.slots[index].allows(header.algorithm) else {
            let mismatch = keys.keys[index].mismatch(for: header.algorithm) ?? "the key may not verify \(header.algorithm.name)"
            return .failure(VerificationError(.keyAlgorithmMismatch, detail: mismatch))
        }
        return .success(index)
    }

    /// The signature check; for a report, the token's SHA-256 fingerprint comes along when the
    /// signature's own digest is SHA-256 (continued from the same state, not hashed again).
    private func isValidSignature(
        _ key: EVPPublicKey, _ signature: UnsafeRawBufferPointer, _ token: UnsafeRawBufferPointer, _ jws: CompactJWS,
        _ algorithm: SignatureAlgorithm, details: UnsafeMutablePointer<VerificationOutcome>?
    ) -> Bool {
        let signingInput = UnsafeRawBufferPointer(rebasing: token[jws.signingInput])
        guard let details, details.pointee.fingerprintWanted else {
            return key.isValidSignature(signature, over: signingInput, algorithm: algorithm)
        }
        var written = false
        var fingerprint = SHA256Digest()
        let valid = fingerprint.withUnsafeMutableBytes { output in
            withUnsafeMutablePointer(to: &written) { written in
                key.isValidSignature(
                    signature, over: signingInput, algorithm: algorithm,
                    fingerprint: FingerprintRequest(
                        rest: UnsafeRawBufferPointer(rebasing: token[jws.signingInput.upperBound...]), output: output, written: written))
            }
        }
        if written { details.pointee.fingerprint = fingerprint }
        return valid
    }

    /// Verifies only the JWS layer of `token` (size, structure, header, key, signature) and returns
    /// the algorithm and the decoded payload, without reading it as JWT claims. For JWS payloads
    /// that are not JWTs (RFC examples, Wycheproof) and for diagnostics; never for accepting sign-ins.
    package func verifySignatureOnly(_ token: [UInt8]) -> Result<(SignatureAlgorithm, [UInt8]), VerificationError> {
        guard token.count <= policy.maxTokenBytes else {
            return .failure(VerificationError(.tooLarge, detail: "token is \(token.count) octets; the limit is \(policy.maxTokenBytes)"))
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
                switch verifySignature(bytes, jws, scratch: scratch, contexts: ThreadContexts.current, details: nil) {
                case .signed(let parts): return .success((parts.header.algorithm, Array(parts.payload)))
                case .failed(let failure): return .failure(failure.error)
                }
            }
        }
    }

    /// The generic claim checks: issuer, audience, exp, nbf, iat, nonce — in that order.
    /// `nonceSupported`: the token's `nonce_supported`, for the Apple rule that may excuse a
    /// missing nonce.
    func check(_ claims: RegisteredClaims, rawNonce: UnsafeRawBufferPointer?, now: Double, nonceSupported: Bool?) -> VerificationError? {
        checkIssuerAndAudience(claims) ?? checkTimeAndNonce(claims, rawNonce: rawNonce, now: now, nonceSupported: nonceSupported)
    }

    /// `iss` and `aud` against the policy: decided by the token's bytes and the policy alone.
    private func checkIssuerAndAudience(_ claims: RegisteredClaims) -> VerificationError? {
        if let issuerBytes {
            guard let iss = claims.issuer else { return VerificationError(.issuerMismatch, detail: "iss is missing") }
            guard issuerBytes.contains(where: { Self.sameBytes(iss, $0) }) else {
                return VerificationError(
                    .issuerMismatch, detail: "iss \(Self.quoted(iss)) is not \(policy.issuers?.map(Self.quoted).joined(separator: " or ") ?? "")")
            }
        }
        if let audienceBytes {
            guard let aud = claims.audience else { return VerificationError(.audienceMismatch, detail: "aud is missing") }
            let matches = aud.contains { member in audienceBytes.contains { Self.sameBytes(member, $0) } }
            guard matches else {
                let named = aud.count == 1 ? Self.quoted(aud[0]) : "[" + aud.prefix(8).map(Self.quoted).joined(separator: ", ") + (aud.count > 8 ? ", …]" : "]")
                return VerificationError(.audienceMismatch, detail: "aud \(named) names no accepted audience")
            }
        }
        return nil
    }

    /// `exp`, `nbf`, `iat` against `now` with the leeway, then this call's nonce: what a cache hit
    /// must check again.
    func checkTimeAndNonce(_ claims: RegisteredClaims, rawNonce: UnsafeRawBufferPointer?, now: Double, nonceSupported: Bool?) -> VerificationError? {
        let leeway = policy.leeway
        if let exp = claims.expiresAt, now >= exp + leeway {
            return VerificationError(.expired, detail: "expired at \(Self.number(exp)), \(Self.seconds(now - exp)) before now (leeway \(Self.seconds(leeway)))")
        }
        if let nbf = claims.notBefore, nbf > now + leeway {
            return VerificationError(.notYetValid, detail: "not valid before \(Self.number(nbf)), \(Self.seconds(nbf - now)) from now")
        }
        if let iat = claims.issuedAt, iat > now + leeway {
            return VerificationError(.issuedInFuture, detail: "issued at \(Self.number(iat)), \(Self.seconds(iat - now)) in the future")
        }
        guard let rawNonce else {
            guard policy.nonceRequirement == .required else { return nil }
            return VerificationError(.nonceMissing, detail: "this policy requires the raw nonce of the sign-in, and none was given")
        }
        guard var nonce = claims.nonce else {
            if policy.rules.acceptsMissingNonceWhenUnsupported && nonceSupported == false { return nil }
            return VerificationError(.nonceMissing, detail: "a nonce was expected but the token has none")
        }
        let matches = nonce.withUTF8 { Nonce.matches(claim: UnsafeRawBufferPointer($0), rawNonce: rawNonce) }
        guard matches else {
            return VerificationError(.nonceMismatch, detail: "nonce is not the lowercase hex SHA-256 of the raw nonce")
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
        var json = OutputText()
        json.string(cut)
        return json.string
    }

    /// A duration for people: whole seconds from a minute up (`3600s`), else at most three
    /// decimals (`1.5s`, `0.25s`).
    static func seconds(_ value: Double) -> String {
        if abs(value) >= 60 { return number(value.rounded(.towardZero)) + "s" }
        return number((value * 1000).rounded() / 1000) + "s"
    }

    /// A NumericDate or duration without a spurious `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }
}
