/// A verdict together with what the verifier decoded on the way, for reports: the CLI's records
/// and the audit report are written from this, never from a second decoding of the token.
///
/// For a valid token the fields are the verified ones. For a rejected token they are what could
/// be read without trust: each is filled only when its segment decoded and the member had the
/// expected JSON type.
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
    /// SHA-256 of the whole token, when the signature step could continue it from its own
    /// SHA-256 state (RS256, PS256, ES256 tokens that got as far as the signature).
    package var fingerprint: SHA256Digest?
    /// Whether the caller asked for ``fingerprint`` (set before the walk, read by it).
    var fingerprintWanted = false
    /// Whether a rejected token's payload should be read without trust (reports); the cache's
    /// own bookkeeping on a miss wants only what a success reads.
    var peeksRejected = true

    /// Whether the token verified.
    package var verified: Bool { if case .success = result { true } else { false } }

    /// The verified token, if any.
    package var token: VerifiedToken? { if case .success(let token) = result { token } else { nil } }

    /// The error, if any.
    package var error: VerificationError? { if case .failure(let error) = result { error } else { nil } }

    /// An outcome that carries only a verdict.
    package init(_ result: Result<VerifiedToken, VerificationError>) { self.result = result }
}
