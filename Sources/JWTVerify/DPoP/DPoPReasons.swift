extension VerificationError.Reason {
    /// DPoP: the request has no proof and needs one (the token is bound to a key, or the policy
    /// requires proofs), or the token is bound while the policy takes no proofs.
    public static let dpopMissing = VerificationError.Reason(rawValue: "dpop_missing")
    /// DPoP: the proof is not one: not a compact JWS, `typ`, `alg` or `jwk` wrong, the signature
    /// not by its `jwk`, a claim missing or mistyped, or `iat` outside the window.
    public static let dpopInvalid = VerificationError.Reason(rawValue: "dpop_invalid")
    /// DPoP: a genuine proof for something else: `htm`, `htu`, `ath` or the token's `cnf.jkt`.
    public static let dpopMismatch = VerificationError.Reason(rawValue: "dpop_mismatch")
    /// DPoP: the proof's `jti` was already accepted within the window (or the replay cache is
    /// full of proofs still within theirs, so this one cannot be recorded).
    public static let dpopReplayed = VerificationError.Reason(rawValue: "dpop_replayed")
}

extension ReasonEntry {
    /// The DPoP proof's reasons, in the order its checks run (after the token's own checks).
    /// `serve` answers them `401` with a `DPoP` challenge (RFC 9449 §7.1, §12.2).
    package static let dpop: [ReasonEntry] = [
        ReasonEntry(
            .dpopMissing,
            "no DPoP proof where one is needed (a token bound by `cnf.jkt`, or `--dpop required`), "
                + "a bound token where proofs are off, or no `cnf.jkt` where proofs are required",
            stage: .proof, answer: .proofChallenged(error: "invalid_token")),
        ReasonEntry(
            .dpopInvalid,
            "the DPoP proof is not a compact JWS typed `dpop+jwt`, signed with an allowed asymmetric `alg` "
                + "by the public `jwk` of its header, with `jti`, `htm`, `htu` and an `iat` within the window",
            stage: .proof, answer: .proofChallenged(error: "invalid_dpop_proof")),
        ReasonEntry(
            .dpopMismatch,
            "the DPoP proof is for another method (`htm`), URI (`htu`), token (`ath`) or key (`cnf.jkt`)",
            stage: .proof, answer: .proofChallenged(error: "invalid_dpop_proof")),
        ReasonEntry(
            .dpopReplayed,
            "the DPoP proof's `jti` was already accepted within the window, or the replay cache is full",
            stage: .proof, answer: .proofChallenged(error: "invalid_dpop_proof")),
        ReasonEntry(
            .replayStoreUnavailable,
            "the shared replay store (`serve --replay-store`) could not record the DPoP proof's `jti` "
                + "(or a notification's ID): refused until it can",
            stage: .proof, answer: .unavailable),
    ]
}
