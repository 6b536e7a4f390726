/// A reason as the docs and the gateway describe it: its code, what it means, where among the
/// checks it is given, and how `serve` answers it. The generic checks' are listed here
/// (``generic``); each provider declares its own (``ProviderProfile/reasons``), and
/// ``VerificationError/Reason/all`` and the docs' reason table are made from both.
package struct ReasonEntry: Sendable {
    /// The reason.
    package let reason: VerificationError.Reason
    /// What it means, for the docs' table (Markdown).
    package let meaning: String
    /// Where among the checks it is given.
    package let stage: Stage
    /// How `serve` answers it.
    package let answer: Answer

    /// Where among the checks a reason is given.
    package enum Stage: Sendable {
        /// Among the generic checks, in their order.
        case generic
        /// Where other tokens' keys are chosen (after `key_alg_mismatch`): a key from the token's
        /// own certificates.
        case keyChoice
        /// After the generic checks: the provider's rules.
        case rules
        /// After every other check: the policy's claim rules (``VerificationPolicy/claimRules``).
        case authorization
        /// After the token verified: the request's DPoP proof (``ReasonEntry/dpop``).
        case proof
        /// Not a check of the token: the keys could not be had.
        case keys
    }

    /// How `serve` answers a reason.
    package enum Answer: Sendable, Equatable {
        /// `401` with `WWW-Authenticate: Bearer error="invalid_token"`: the token is not good.
        case unauthorized
        /// `403`: a genuine token, for another service.
        case forbidden
        /// `503` with `Retry-After`: no verdict yet.
        case unavailable
        /// `403` with `WWW-Authenticate: Bearer error="<error>"` (RFC 6750 §3.1) and, when the
        /// rules name scopes (``ProviderProfile/challengeScope``), `scope="…"` listing them: a
        /// genuine token that lacks a privilege the route requires.
        case challenged(error: String)
        /// `401` with `WWW-Authenticate: DPoP error="<error>"` (RFC 9449 §7.1, §12.2): a DPoP
        /// proof missing, invalid or for another request.
        case proofChallenged(error: String)
    }

    /// A reason's entry.
    package init(
        _ reason: VerificationError.Reason, _ meaning: String, stage: Stage = .rules, answer: Answer = .unauthorized
    ) {
        self.reason = reason
        self.meaning = meaning
        self.stage = stage
        self.answer = answer
    }

    /// The generic checks' reasons, in the order they run, and the key set's.
    package static let generic: [ReasonEntry] = [
        ReasonEntry(.tooLarge, "token longer than the size limit (checked before anything else)", stage: .generic),
        ReasonEntry(
            .malformed,
            "not a compact JWS: segment count, base64url, header or payload not strict JSON or not an object",
            stage: .generic),
        ReasonEntry(
            .unsupportedAlgorithm, "`alg` not on the allow-list (case-sensitive), or a 5-segment JWE", stage: .generic),
        ReasonEntry(.algorithmNone, "`alg` is `none` in any letter case", stage: .generic),
        ReasonEntry(
            .headerInvalid,
            "`alg` missing or not a string, `kid` not a string, `typ` not the profile's type "
                + "(`JWT` unless it says otherwise), `b64` not `true`",
            stage: .generic),
        ReasonEntry(.critUnsupported, "the header has `crit`", stage: .generic),
        ReasonEntry(.unknownKeyID, "no key has the token's `kid`, or no `kid` and more than one key", stage: .generic),
        ReasonEntry(.keyAlgorithmMismatch, "the selected key may not verify this `alg`", stage: .generic),
        ReasonEntry(.badSignature, "the signature does not verify", stage: .generic),
        ReasonEntry(
            .claimType, "a registered claim has the wrong type or range, or `exp` is missing", stage: .generic),
        ReasonEntry(.issuerMismatch, "`iss` missing or not an accepted issuer", stage: .generic),
        ReasonEntry(
            .audienceMismatch, "`aud` missing or naming no accepted audience", stage: .generic, answer: .forbidden),
        ReasonEntry(.expired, "`now ≥ exp + leeway`", stage: .generic),
        ReasonEntry(.notYetValid, "`nbf > now + leeway`", stage: .generic),
        ReasonEntry(.issuedInFuture, "`iat > now + leeway`", stage: .generic),
        ReasonEntry(
            .nonceMissing,
            "a nonce was given but the token has none, or the policy requires the raw nonce and the call gave none",
            stage: .generic),
        ReasonEntry(.nonceMismatch, "`nonce` is not the lowercase hex SHA-256 of the raw nonce", stage: .generic),
        ReasonEntry(
            .claimMismatch, "a claim rule of the policy (`--require-claim PATH=VALUE`) does not hold",
            stage: .authorization, answer: .challenged(error: "insufficient_scope")),
        ReasonEntry(
            .keySetUnavailable, "a remote key set has no keys to verify with", stage: .keys, answer: .unavailable),
    ]

    /// Every reason's entry, in the order the checks run: the generic checks up to the key's
    /// choice, the providers' key choices, the rest of the generic checks, the providers' rules
    /// (in registry order), the policy's claim rules, the DPoP proof's (``dpop``), and the key set's.
    /// Each reason once.
    package static let all: [ReasonEntry] = {
        let providers = ProviderRegistry.profiles.flatMap { $0.reasons }
        let generic = Self.generic.filter { $0.stage == .generic }
        var seen: Set<String> = []
        var ordered: [ReasonEntry] = Array(generic.prefix(8))
        ordered += providers.filter { $0.stage == .keyChoice }
        ordered += generic.dropFirst(8)
        ordered += providers.filter { $0.stage == .rules }
        ordered += Self.generic.filter { $0.stage == .authorization }
        ordered += Self.dpop
        ordered += Self.generic.filter { $0.stage == .keys }
        return ordered.filter { seen.insert($0.reason.rawValue).inserted }
    }()

    /// The entry of `reason`, if the verifier gives it.
    package static func entry(of reason: VerificationError.Reason) -> ReasonEntry? {
        all.first { exactlyEquals($0.reason.rawValue, reason.rawValue) }
    }
}

extension ReasonEntry.Stage: Equatable {}
