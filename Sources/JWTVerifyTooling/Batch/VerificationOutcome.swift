package import JWTVerify

/// A verdict together with what the pipeline decoded on the way, for records and reports: the
/// CLI's records and the audit report are written from this, never from a second verification.
///
/// For a valid token the fields are the verified ones. For a rejected token they are what could
/// be read without trust: the pipeline's ``WalkTrace``, and where the walk stopped before the
/// payload, the payload read leniently here.
package struct VerificationOutcome: Sendable {
    /// The verdict.
    package var result: Result<VerifiedToken, VerificationError>
    /// The header's `alg` as written, when it is a string (a verified token's own otherwise).
    package var algorithm: String? {
        get { if case .success(let token) = result { token.algorithm.name } else { readAlgorithm } }
        set { readAlgorithm = newValue }
    }
    /// The header's `kid`, when it is a string (a verified token's own otherwise).
    package var keyID: String? {
        get { if case .success(let token) = result { token.keyID } else { readKeyID } }
        set { readKeyID = newValue }
    }
    /// The registered claims: the verified token's when ``verified``, else read without trust.
    package var claims: RegisteredClaims {
        _read {
            if case .success(let token) = result { yield token.claims } else { yield readClaims }
        }
        set { readClaims = newValue }
    }
    /// Runs `body` with ``claims`` lent where they live (the verified token's box, or this
    /// outcome): for per-token writers, which read several members. Unlike the `claims` accessor,
    /// it allocates nothing (a `_read` accessor that forwards to another allocates its frame).
    package func withClaims<R>(_ body: (borrowing RegisteredClaims) -> R) -> R {
        if case .success(let token) = result { return token.withClaims { claims, _ in body(claims) } }
        return body(readClaims)
    }
    /// What was read of a rejected token (a verified token carries its own).
    private var readAlgorithm: String?
    private var readKeyID: String?
    private var readClaims = RegisteredClaims()
    /// `email_verified` as a boolean or "true"/"false", when present (verified or not).
    package var emailVerified: Bool?
    /// The time the token was evaluated at (for ``EvaluationTime/issuedAt``, its `iat`).
    package var evaluatedAt: Double?
    /// SHA-256 of the whole token, when the pipeline continued it from the signature's own
    /// SHA-256 state (fingerprints asked for; RS256, PS256, ES256 tokens that reached the signature).
    package var fingerprint: SHA256Digest?

    /// Whether the token verified.
    package var verified: Bool { if case .success = result { true } else { false } }

    /// The verified token, if any.
    package var token: VerifiedToken? { if case .success(let token) = result { token } else { nil } }

    /// The error, if any.
    package var error: VerificationError? { if case .failure(let error) = result { error } else { nil } }

    /// An outcome that carries only a verdict.
    package init(_ result: Result<VerifiedToken, VerificationError>) { self.result = result }

    /// The outcome of `token` from the pipeline's verdict and trace (``Verifier/evaluate(_:at:tracing:_:)``
    /// with tracing). A token the JWS layer rejected gets its payload read leniently here, and its
    /// evaluation time from that payload's `iat` where `time` asks for it.
    package init(
        _ result: Result<VerifiedToken, VerificationError>, trace: borrowing WalkTrace, token: UnsafeRawBufferPointer,
        verifier: borrowing Verifier,
        time: EvaluationTime
    ) {
        self.result = result
        readAlgorithm = trace.algorithm
        readKeyID = trace.keyID
        emailVerified = trace.emailVerified
        evaluatedAt = trace.evaluatedAt
        fingerprint = trace.fingerprint
        if let claims = trace.claims { readClaims = claims }
        guard trace.stoppedAtJWSLayer else { return }
        let peeked = trace.unverifiedPayload.map { UnverifiedPayload.read($0) } ?? UnverifiedPayload.read(token: token)
        if let peeked {
            readClaims = peeked.claims
            emailVerified = peeked.emailVerified
        }
        evaluatedAt = verifier.evaluationInstant(time, issuedAt: readClaims.issuedAt)
    }
}

extension Verifier {
    /// One token through the pipeline with its trace, as an outcome (a one-token batch): for
    /// `inspect`-like single uses and tests; the batch faces call ``evaluate(_:at:tracing:_:)``.
    package func outcome(
        _ token: UnsafeRawBufferPointer, nonce: String?, at time: EvaluationTime, fingerprint: Bool = false
    ) -> VerificationOutcome {
        var batch = TokenBatch()
        if var nonce {
            nonce.withUTF8 { batch.append(bytes: token, nonce: UnsafeRawBufferPointer($0)) }
        } else {
            batch.append(bytes: token, nonce: nil)
        }
        var outcome = VerificationOutcome(.failure(VerificationError(.malformed)))
        evaluate(batch, at: time, tracing: true, fingerprints: fingerprint) { _, token, result, trace in
            outcome = VerificationOutcome(result, trace: trace, token: token, verifier: self, time: time)
        }
        return outcome
    }
}
