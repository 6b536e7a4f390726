extension Verifier {
    /// Verifies `token` and then the request's DPoP proof (RFC 9449), as the policy's
    /// ``VerificationPolicy/dpop`` says:
    ///
    /// - the token first, exactly as ``verify(_:nonce:at:)-(String,_,_)`` does (a cache hit
    ///   included: the proof is checked on every call, never cached);
    /// - then, ``DPoPPolicy/Mode-swift.enum/off``: `dpop` is ignored, and a token bound to a key
    ///   (`cnf.jkt`) is refused as `dpop_missing`;
    /// - ``DPoPPolicy/Mode-swift.enum/allowed``: without `dpop`, a bound token is `dpop_missing`;
    ///   with it, the proof is checked and the token must be bound to its key;
    /// - ``DPoPPolicy/Mode-swift.enum/required``: `dpop` is needed (else `dpop_missing`), and the
    ///   token must be bound to its key.
    ///
    /// The proof's checks run in a fixed order (see <doc:DPoP>): `dpop_invalid`, `dpop_mismatch`,
    /// and last `dpop_replayed`, checked and recorded at once by this verifier's recorder
    /// (``proofRecorder``) only when everything else passed. The proof is verified with the key in
    /// its own header (`jwk`): the one key this library takes from a token, made trustworthy by
    /// the token's `cnf.jkt`, which must be that key's thumbprint.
    ///
    /// - Parameters:
    ///   - token: the access token exactly as received (the `Authorization: DPoP` value).
    ///   - dpop: the request's proof, method and URI; `nil` when the request carried no proof.
    ///   - nonce: as ``verify(_:nonce:at:)-(String,_,_)``'s.
    ///   - time: evaluate the token and the proof's `iat` at this time instead of the clock.
    /// - Returns: the verified token.
    /// - Throws: a ``VerificationError`` with the first failing check's reason.
    public func verify(_ token: String, dpop: DPoPRequest?, nonce: String? = nil, at time: Double? = nil)
        throws(VerificationError) -> VerifiedToken
    {
        var token = token
        return try token.withUTF8 {
            evaluate(
                UnsafeRawBufferPointer($0), nonce: nonce, dpop: dpop, at: time.map(EvaluationTime.fixed) ?? .clock)
        }.get()
    }

    /// ``evaluate(_:nonce:at:)`` and then the DPoP rules with `dpop` (``judgeProof(_:token:dpop:at:)``).
    package func evaluate(
        _ bytes: UnsafeRawBufferPointer, nonce: String?, dpop: DPoPRequest?, at time: EvaluationTime
    ) -> Result<VerifiedToken, VerificationError> {
        judgeProof(evaluateToken(bytes, nonce: nonce, at: time), token: bytes, dpop: dpop, at: time)
    }

    /// The DPoP rules over a token's verdict (`token` its bytes, as verified) with the request's
    /// proof, when it has one: every face calls this after the token's own checks, so a face that
    /// takes no proofs refuses what needs one. A refusal of the token is kept as it is.
    package func judgeProof(
        _ result: Result<VerifiedToken, VerificationError>, token: UnsafeRawBufferPointer, dpop: DPoPRequest?,
        at time: EvaluationTime
    ) -> Result<VerifiedToken, VerificationError> {
        guard case .success(let verified) = result else { return result }
        let mode = policy.dpop.mode
        if mode == .off {
            // Proofs are not taken; only the access-token profile's claims say whether a token is bound.
            guard verified.provider.held(AccessTokenClaims.self)?.keyThumbprint != nil else { return result }
            return .failure(
                VerificationError(
                    .dpopMissing,
                    detail: "the token is bound to a key (cnf.jkt) and this policy takes no DPoP proofs"))
        }
        let thumbprint = Self.boundThumbprint(verified)
        guard let dpop else {
            if mode == .required {
                return .failure(
                    VerificationError(.dpopMissing, detail: "the request has no DPoP proof, and one is required"))
            }
            guard thumbprint != nil else { return result }
            return .failure(
                VerificationError(
                    .dpopMissing, detail: "the token is bound to a key (cnf.jkt) and the request has no DPoP proof"))
        }
        let now: Double = if case .fixed(let fixed) = time { fixed } else { policy.clock() }
        switch DPoPProof.check(
            dpop, token: token, thumbprint: thumbprint, policy: policy, now: now, keys: proofReplay?.keys)
        {
        case .failure(let error): return .failure(error)
        case .success(let proof):
            // A verifier whose policy takes proofs always has its recorder; without one, refuse.
            guard let proofRecorder else {
                return .failure(VerificationError(.dpopReplayed, detail: "this verifier has no replay cache"))
            }
            switch proofRecorder.recordProof(DPoPReplayKey(proof.replayKey), until: proof.expiry, now: now) {
            case .recorded: return result
            case .seen:
                return .failure(
                    VerificationError(.dpopReplayed, detail: "the proof's jti was already accepted within its window"))
            case .full:
                return .failure(
                    VerificationError(
                        .dpopReplayed,
                        detail: "the replay cache is full of proofs still within their window, so this one "
                            + "cannot be recorded and is refused"))
            case .unavailable(let why):
                return .failure(
                    VerificationError(
                        .replayStoreUnavailable, detail: "the proof's jti could not be recorded: \(why)"))
            }
        }
    }

    /// The token's `cnf.jkt`: the access-token profile's typed claim, or for other policies read
    /// from the payload (only when proofs are taken).
    private static func boundThumbprint(_ token: VerifiedToken) -> String? {
        if let claims = token.provider.held(AccessTokenClaims.self) { return claims.keyThumbprint }
        guard case .object(let cnf)? = token.claim("cnf"), case .string(let jkt)? = cnf["jkt"] else { return nil }
        return jkt
    }
}

extension RemoteVerifier {
    /// Verifies `token` and the request's DPoP proof as ``Verifier/verify(_:dpop:nonce:at:)``
    /// does, waiting for a key refresh as ``verify(_:nonce:at:)`` does. The replay cache is this
    /// verifier's (``proofReplay``), kept across key refreshes.
    public func verify(_ token: String, dpop: DPoPRequest?, nonce: String? = nil, at time: Double? = nil)
        async throws(VerificationError) -> VerifiedToken
    {
        if keySet.currentKeysAndGeneration().keys == nil { await keySet.load() }
        let first = Result { () throws(VerificationError) in
            try verifyWithoutWaiting(token, dpop: dpop, nonce: nonce, at: time)
        }
        guard case .failure(let error) = first, Self.namesUnknownKey(error) else { return try first.get() }
        try await waitForRefresh(after: error)
        return try verifyWithoutWaiting(token, dpop: dpop, nonce: nonce, at: time)
    }

    /// ``verify(_:dpop:nonce:at:)`` with the keys at hand, never waiting on the network.
    public func verifyWithoutWaiting(_ token: String, dpop: DPoPRequest?, nonce: String? = nil, at time: Double? = nil)
        throws(VerificationError) -> VerifiedToken
    {
        try currentVerifier().verify(token, dpop: dpop, nonce: nonce, at: time)
    }
}

extension AnyVerifier {
    /// Verifies `token` and the request's DPoP proof: ``Verifier/verify(_:dpop:nonce:at:)`` or
    /// ``RemoteVerifier/verify(_:dpop:nonce:at:)``.
    public func verify(_ token: String, dpop: DPoPRequest?, nonce: String? = nil, at time: Double? = nil)
        async throws(VerificationError) -> VerifiedToken
    {
        switch self {
        case .local(let verifier): try verifier.verify(token, dpop: dpop, nonce: nonce, at: time)
        case .remote(let verifier): try await verifier.verify(token, dpop: dpop, nonce: nonce, at: time)
        }
    }
}
