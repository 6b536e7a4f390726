extension Verifier {
    /// Stage C, the rest of the walk (steps 10–17 and the provider's rules), for a token the
    /// signature stage has seen: the payload is read once, only after its signature held; then
    /// claim types, `iss`, `aud`, `exp`, `nbf`, `iat`, the nonce and the provider's rules, in
    /// that order. A cache hit re-runs what depends on time, nonce and keys; a token rejected
    /// earlier keeps its reason. With `tracing`, what was read goes into the token's trace.
    /// Signed data nested in the token is verified in place, token by token.
    func walk(
        _ prepared: inout PreparedToken, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, tracing: Bool
    ) -> Result<VerifiedToken, VerificationError> {
        switch walkStep(&prepared, rawNonce: rawNonce, time: time, tracing: tracing) {
        case .done(let result): return result
        case .pending(let pending):
            let nested = pending.nested.map { token in
                token.withBytes(in: pending.payload) { evaluateOne($0, rawNonce: nil, time: time) }
            }
            return conclude(&prepared, pending, nested: nested[...], tracing: tracing)
        }
    }

    /// ``walk(_:rawNonce:time:tracing:)`` up to the signed data nested in the token: a token that
    /// carries some is left pending, for its caller to verify them (a batch, all of its tokens'
    /// together) and ``conclude(_:_:nested:tracing:)`` it.
    func walkStep(
        _ prepared: inout PreparedToken, rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, tracing: Bool
    ) -> WalkStep {
        switch prepared.stage {
        case .decided(let result):
            return .done(result)
        case .rejected(let error):
            if tracing, prepared.isSplit {
                if prepared.payloadRange == nil { decodePayload(&prepared) }
                prepared.trace.stoppedAtJWSLayer = true
                prepared.trace.unverifiedPayload = prepared.payload
            }
            return .done(.failure(error))
        case .cached(let entry):
            return .done(recheck(entry, rawNonce: rawNonce, time: time, trace: &prepared.trace, tracing: tracing))
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
            return .done(result)
        case .awaitingSignature:
            preconditionFailure("the walk reached a token the signature stage did not see")
        case .signed:
            if tracing { prepared.trace.payload = prepared.payload }
            switch readPayload(&prepared, rawNonce: rawNonce, time: time, tracing: tracing) {
            case .pending(let pending): return .pending(pending)
            case .done(let result):
                remember(prepared, result)
                return .done(result)
            }
        }
    }

    /// The end of a pending token's walk, once its nested tokens have their verdicts (in the
    /// order ``PendingCompletion/nested`` names them): the provider completes its claims (a nested
    /// failure fails the token), then the policy's claim rules; a verified token is cached.
    func conclude(
        _ prepared: inout PreparedToken, _ pending: PendingCompletion,
        nested: ArraySlice<Result<VerifiedToken, VerificationError>>, tracing: Bool
    ) -> Result<VerifiedToken, VerificationError> {
        var result: Result<VerifiedToken, VerificationError>
        switch policy.rules.complete(pending.provider, nested: nested) {
        case .failure(let error): result = .failure(error)
        case .success(let provider):
            if let failure = pending.claimRuleFailure {
                result = .failure(failure)
            } else {
                result = .success(
                    VerifiedToken(
                        algorithm: pending.algorithm, keyID: pending.keyID, claims: pending.claims, provider: provider,
                        payload: pending.payload, captured: pending.captured))
            }
        }
        if tracing, case .failure = result { prepared.trace.claims = pending.claims }
        remember(prepared, result)
        return result
    }

    /// A verified token the cache missed, stored in its slot.
    @inline(__always)
    private func remember(_ prepared: PreparedToken, _ result: Result<VerifiedToken, VerificationError>) {
        guard let hash = prepared.cacheHash, let cache, case .success(let verified) = result,
            let slot = slot(for: verified)
        else { return }
        cache.insert(
            prepared.token, hash: hash,
            entry: VerifiedTokenCache.Entry(
                verified: verified, keyIdentity: slot.identity, emailVerified: prepared.trace.emailVerified))
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
    ) -> WalkStep {
        // A cache miss keeps what a traced hit must show (email_verified), read on the same pass.
        // The payload's one copy, made before the parse: the verified token keeps it, and its
        // claims keep their strings as places in it rather than copies of their own.
        let source = Array(prepared.payload!)
        let reading = PayloadReading(
            provider: policy.rules.claimsReader, requiresExpiration: policy.rules.requiresExpiration,
            report: tracing || prepared.cacheHash != nil, captured: capturedClaims, claimRules: claimRules,
            source: source)
        var read: PayloadRead
        switch source.withUnsafeBytes({ JSONObjectParser.parse($0, reading) }) {
        case .success(let value): read = value
        case .failure(let problem):
            if tracing { prepared.trace.evaluatedAt = evaluationInstant(time, issuedAt: nil) }
            switch problem {
            case .invalid(let message):
                return .done(.failure(VerificationError(.malformed, detail: "payload is not valid JSON: \(message)")))
            case .notObject:
                return .done(.failure(VerificationError(.malformed, detail: "payload is not a JSON object")))
            }
        }
        prepared.trace.emailVerified = read.emailVerified
        if let error = read.claimsError {
            if tracing {
                let claims = read.lenient ?? RegisteredClaims()
                prepared.trace.evaluatedAt = evaluationInstant(time, issuedAt: claims.issuedAt)
                prepared.trace.claims = claims
            }
            return .done(.failure(error))
        }
        let step = checkClaims(
            &read, header: prepared.header, payload: source, certificateValidity: prepared.certificateValidity,
            rawNonce: rawNonce, time: time,
            trace: &prepared.trace, tracing: tracing)
        // A trace shows a rejected token's claims from here; a verified one's come with the token
        // (a pending one's, when it is concluded).
        if tracing, case .done(.failure) = step { prepared.trace.claims = read.takeClaims() }
        return step
    }

    /// Steps 10–17 over claims already read (and type-checked): the evaluation time, the generic
    /// checks, the provider's rules, and the verified token, which takes the claims out of `read`;
    /// or, for claims that carry signed data of their own, the token pending their verdicts.
    private func checkClaims(
        _ read: inout PayloadRead, header: JOSEHeader, payload: [UInt8],
        certificateValidity: ClosedRange<Double>?,
        rawNonce: UnsafeRawBufferPointer?, time: EvaluationTime, trace: inout WalkTrace, tracing: Bool
    ) -> WalkStep {
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
        // unless the call fixed a time; then the clock is not read.
        let tokenInstant = provider.flatMap { policy.rules.evaluationInstant($0) }
        var now: Double
        if case .clock = time, let tokenInstant {
            now = tokenInstant
        } else {
            switch evaluationTime(time, claims: read.claims) {
            case .success(let instant): now = instant
            case .failure(let error): return .done(.failure(error))
            }
            if !time.isFixed, let tokenInstant { now = tokenInstant }
        }
        if tracing { trace.evaluatedAt = now }
        if let failure = check(read.claims, rawNonce: rawNonce, now: now, provider: provider) {
            return .done(.failure(failure))
        }
        if let providerFailure { return .done(.failure(providerFailure)) }
        if let claims = provider {
            if let certificateValidity,
                let failure = judgeCertificates(certificateValidity, at: time, tokenInstant: tokenInstant)
            {
                return .done(.failure(failure))
            }
            if let failure = policy.rules.check(claims, now: now, leeway: policy.leeway) {
                return .done(.failure(failure))
            }
            let nested = policy.rules.nestedTokens(claims)
            if !nested.isEmpty {
                return .pending(
                    PendingCompletion(
                        algorithm: header.algorithm, keyID: header.keyID, claims: read.takeClaims(), provider: claims,
                        payload: payload, captured: read.captured, claimRuleFailure: read.claimRuleFailure,
                        nested: nested))
            }
        }
        // The policy's claim rules, read on the same pass: after every other check.
        if let failure = read.claimRuleFailure { return .done(.failure(failure)) }
        return .done(
            .success(
                VerifiedToken(
                    algorithm: header.algorithm, keyID: header.keyID, claims: read.takeClaims(), provider: provider,
                    payload: payload, captured: read.captured)))
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
