extension Verifier {
    /// Stage C, the rest of the walk (steps 10–17 and the provider's rules), for a token the
    /// signature stage has seen: the payload is read once, only after its signature held; then
    /// claim types, `iss`, `aud`, `exp`, `nbf`, `iat`, the nonce and the provider's rules, in
    /// that order. A cache hit re-runs what depends on time, nonce and keys; a token rejected
    /// earlier keeps its reason. With `tracing`, what was read goes into the token's trace.
    func walk(
        _ prepared: inout PreparedToken, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, tracing: Bool
    ) -> Result<VerifiedToken, VerificationError> {
        switch prepared.stage {
        case .decided(let result):
            return result
        case .rejected(let error):
            if tracing, prepared.isSplit {
                if prepared.payloadRange == nil { decodePayload(&prepared) }
                prepared.trace.stoppedAtJWSLayer = true
                prepared.trace.unverifiedPayload = prepared.payload
            }
            return .failure(error)
        case .cached(let entry):
            return recheck(entry, rawNonce: rawNonce, time: time, trace: &prepared.trace, tracing: tracing)
        case .repeatOf:
            // The first sighting was walked (and, verified, cached): this one as a token of its own.
            var again = PreparedToken(prepared.token)
            admit(&again)
            if again.awaitsSignature {
                prepare(&again, scratch: prepared.scratch, contexts: ThreadContexts.current, tracing: tracing)
                checkSignature(&again)
            }
            let result = walk(&again, rawNonce: rawNonce, time: time, tracing: tracing)
            prepared.trace = again.trace
            return result
        case .awaitingSignature:
            preconditionFailure("the walk reached a token the signature stage did not see")
        case .signed:
            if tracing { prepared.trace.payload = prepared.payload }
            let result = readPayload(&prepared, rawNonce: rawNonce, time: time, tracing: tracing)
            if let hash = prepared.cacheHash, let cache, case .success(let verified) = result,
                let slot = slot(for: verified)
            {
                cache.insert(
                    prepared.token, hash: hash,
                    entry: VerifiedTokenCache.Entry(
                        verified: verified, keyIdentity: slot.identity, emailVerified: prepared.trace.emailVerified))
            }
            return result
        }
    }

    /// For a trace: the payload of a token refused by its header, decoded after the room its
    /// header segment takes in the scratch (a decoded header never takes more), when it is
    /// strict base64url.
    private func decodePayload(_ prepared: inout PreparedToken) {
        let start = prepared.jws.header.count
        guard prepared.scratch.count >= prepared.token.count,
            let length = Base64URL.decode(
                UnsafeRawBufferPointer(rebasing: prepared.token[prepared.jws.payload]),
                into: UnsafeMutableRawBufferPointer(rebasing: prepared.scratch[start...]))
        else { return }
        prepared.payloadRange = start..<(start + length)
    }

    /// A cache hit: the time, nonce and provider rules of this call, in the walk's order.
    private func recheck(
        _ entry: VerifiedTokenCache.Entry, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime,
        trace: inout WalkTrace, tracing: Bool
    ) -> Result<VerifiedToken, VerificationError> {
        let verified = entry.verified
        if tracing { trace.emailVerified = entry.emailVerified }
        let now: Double
        switch evaluationTime(time, claims: verified.claims) {
        case .success(let instant): now = instant
        case .failure(let error): return .failure(error)
        }
        if tracing { trace.evaluatedAt = now }
        let provider = verified.provider
        var failure = checkTimeAndNonce(verified.claims, rawNonce: rawNonce, now: now, provider: provider)
        if failure == nil { failure = policy.rules.check(provider, now: now, leeway: policy.leeway) }
        guard let failure else { return .success(verified) }
        if tracing {
            // A rejected repeat is reported like any rejected token: with its claims, alg and kid.
            trace.algorithm = verified.algorithm.name
            trace.keyID = verified.keyID
            trace.claims = verified.claims
        }
        return .failure(failure)
    }

    /// The payload of a signed token, read once (registered claims, provider claims and what the
    /// policy captures in one pass), then checked.
    private func readPayload(
        _ prepared: inout PreparedToken, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, tracing: Bool
    ) -> Result<VerifiedToken, VerificationError> {
        // A cache miss keeps what a traced hit must show (email_verified), read on the same pass.
        let reading = PayloadReading(
            rules: policy.rules, report: tracing || prepared.cacheHash != nil, captured: capturedClaims,
            claimRules: claimRules)
        let payload = prepared.payload!
        var read: PayloadRead
        switch JSONObjectParser.parse(payload, reading) {
        case .success(let value): read = value
        case .failure(let problem):
            if tracing { prepared.trace.evaluatedAt = evaluationInstant(time, issuedAt: nil) }
            switch problem {
            case .invalid(let message):
                return .failure(VerificationError(.malformed, detail: "payload is not valid JSON: \(message)"))
            case .notObject: return .failure(VerificationError(.malformed, detail: "payload is not a JSON object"))
            }
        }
        prepared.trace.emailVerified = read.emailVerified
        if let error = read.claimsError {
            if tracing {
                let claims = read.lenient ?? RegisteredClaims()
                prepared.trace.evaluatedAt = evaluationInstant(time, issuedAt: claims.issuedAt)
                prepared.trace.claims = claims
            }
            return .failure(error)
        }
        let result = checkClaims(
            &read, header: prepared.header, payload: payload, certificateValidity: prepared.certificateValidity,
            rawNonce: rawNonce, time: time,
            trace: &prepared.trace, tracing: tracing)
        // A trace shows a rejected token's claims from here; a verified one's come with the token.
        if tracing, case .failure = result { prepared.trace.claims = read.takeClaims() }
        return result
    }

    /// Steps 10–17 over claims already read (and type-checked): the evaluation time, the generic
    /// checks, the provider's rules, and the verified token, which takes the claims out of `read`.
    private func checkClaims(
        _ read: inout PayloadRead, header: JOSEHeader, payload: UnsafeRawBufferPointer,
        certificateValidity: ClosedRange<Double>?,
        rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, trace: inout WalkTrace, tracing: Bool
    ) -> Result<VerifiedToken, VerificationError> {
        var now: Double
        switch evaluationTime(time, claims: read.claims) {
        case .success(let instant): now = instant
        case .failure(let error): return .failure(error)
        }
        // The provider's claims, moved out of `read` (or the type rule they broke, which counts
        // after the generic checks).
        var provider: ProviderClaims? = nil
        var providerFailure: VerificationError? = nil
        switch read.takeProvider() {
        case nil: break
        case .success(let value)?: provider = value
        case .failure(let error)?: providerFailure = error
        }
        // A provider may judge its tokens at an instant of their own (the App Store's signedDate)
        // unless the call fixed a time.
        let tokenInstant = provider.flatMap { policy.rules.evaluationInstant($0) }
        if !time.isFixed, let tokenInstant { now = tokenInstant }
        if tracing { trace.evaluatedAt = now }
        if let failure = check(read.claims, rawNonce: rawNonce, now: now, provider: provider) {
            return .failure(failure)
        }
        if let providerFailure { return .failure(providerFailure) }
        if let claims = provider {
            if let certificateValidity,
                let failure = judgeCertificates(certificateValidity, at: time, tokenInstant: tokenInstant)
            {
                return .failure(failure)
            }
            if let failure = policy.rules.check(claims, now: now, leeway: policy.leeway) { return .failure(failure) }
            switch policy.rules.complete(claims, verifier: self, time: time) {
            case .success(let completed): provider = completed
            case .failure(let error): return .failure(error)
            }
        }
        // The policy's claim rules, read on the same pass: after every other check.
        if let failure = read.claimRuleFailure { return .failure(failure) }
        return .success(
            VerifiedToken(
                algorithm: header.algorithm, keyID: header.keyID, claims: read.takeClaims(), provider: provider,
                payload: Array(payload), captured: read.captured))
    }

    /// The time verified claims are checked at; evaluating at `iat` needs one.
    private func evaluationTime(_ time: EvaluationTime, claims: RegisteredClaims) -> Result<Double, VerificationError> {
        guard let instant = evaluationInstant(time, issuedAt: claims.issuedAt) else {
            return .failure(
                VerificationError(.claimType, detail: "evaluation at the token's iat: the token has no usable iat"))
        }
        return .success(instant)
    }

    /// The time a token is evaluated at, `nil` when it is to be its missing `iat`.
    package func evaluationInstant(_ time: EvaluationTime, issuedAt: Double?) -> Double? {
        switch time {
        case .clock: policy.clock()
        case .fixed(let instant): instant
        case .issuedAt: issuedAt
        }
    }
}
