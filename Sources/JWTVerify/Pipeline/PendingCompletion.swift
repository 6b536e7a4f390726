/// A token whose walk waits only for the signed data nested in it (an App Store notification's
/// transaction and renewal info): every check up to the provider's completion has passed. What is
/// left: verify the nested tokens through the pipeline, complete the provider's claims with their
/// verdicts, then the policy's claim rules (``Verifier/conclude(_:_:nested:tracing:)``).
///
/// A batch gathers the nested tokens of all its pending tokens into one batch of their own, so
/// their signatures are checked together; a single call verifies them in place. A class: it is
/// looked at several times on its way (gathered, then concluded), and a look costs one reference
/// count instead of one per array and string it holds.
final class PendingCompletion {
    let algorithm: SignatureAlgorithm
    let keyID: String?
    /// The registered claims, checked.
    let claims: RegisteredClaims
    /// The provider's claims, checked, not yet completed.
    let provider: ProviderClaims
    let payload: [UInt8]
    let captured: [JSONValue?]
    /// The policy's claim rules' verdict, read on the payload's one pass; it counts after the
    /// nested tokens'.
    let claimRuleFailure: VerificationError?
    /// The nested tokens, in the order the provider takes their verdicts.
    let nested: [NestedToken]

    init(
        algorithm: SignatureAlgorithm, keyID: String?, claims: RegisteredClaims, provider: ProviderClaims,
        payload: [UInt8], captured: [JSONValue?], claimRuleFailure: VerificationError?, nested: [NestedToken]
    ) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.claims = claims
        self.provider = provider
        self.payload = payload
        self.captured = captured
        self.claimRuleFailure = claimRuleFailure
        self.nested = nested
    }
}

/// Where one token's walk stands: decided, or waiting for the tokens nested in it.
///
/// A pending token is a reference (``PendingCompletion`` is a class): it is rare (App Store
/// notifications with nested data), and held inline its claims would make every token's step
/// several times the size of a verdict, copied at each return of the walk.
enum WalkStep {
    case done(Result<VerifiedToken, VerificationError>)
    case pending(PendingCompletion)
}
