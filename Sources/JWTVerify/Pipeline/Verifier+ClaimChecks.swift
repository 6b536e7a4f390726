#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Verifier {
    /// The generic claim checks: issuer, audience, exp, nbf, iat, nonce — in that order.
    /// `provider`: the provider's claims, whose rules may excuse a missing nonce.
    func check(_ claims: RegisteredClaims, rawNonce: UnsafeRawBufferPointer?, now: Double, provider: ProviderClaims?)
        -> VerificationError?
    {
        checkIssuerAndAudience(claims) ?? checkTimeAndNonce(claims, rawNonce: rawNonce, now: now, provider: provider)
    }

    /// `iss` and `aud` against the policy: decided by the token's bytes and the policy alone.
    private func checkIssuerAndAudience(_ claims: RegisteredClaims) -> VerificationError? {
        if let issuerBytes {
            guard claims.has(.issuer) else { return VerificationError(.issuerMismatch, detail: "iss is missing") }
            // The claim's bytes in place: a `String` only for the detail of a refusal.
            guard claims.withBytes(of: .issuer, { issuerBytes.contains(bytes: $0!) }) else {
                let iss = claims.issuer ?? ""
                return VerificationError(
                    .issuerMismatch,
                    detail:
                        "iss \(Self.quoted(iss)) is not \(policy.issuers?.map(Self.quoted).joined(separator: " or ") ?? "")"
                )
            }
        }
        if let audienceBytes {
            if claims.has(.singleAudience) {
                if claims.withBytes(of: .singleAudience, { audienceBytes.contains(bytes: $0!) }) { return nil }
            } else if claims.audience == nil {
                return VerificationError(.audienceMismatch, detail: "aud is missing")
            }
            let aud = claims.audience ?? []
            let matches = aud.contains { audienceBytes.contains($0) }
            guard matches else {
                let named =
                    aud.count == 1
                    ? Self.quoted(aud[0])
                    : "[" + aud.prefix(8).map(Self.quoted).joined(separator: ", ") + (aud.count > 8 ? ", …]" : "]")
                return VerificationError(.audienceMismatch, detail: "aud \(named) names no accepted audience")
            }
        }
        return nil
    }

    /// `exp`, `nbf`, `iat` against `now` with the leeway, then this call's nonce: what a cache hit
    /// must check again.
    func checkTimeAndNonce(
        _ claims: RegisteredClaims, rawNonce: UnsafeRawBufferPointer?, now: Double, provider: ProviderClaims?
    ) -> VerificationError? {
        let leeway = policy.leeway
        if let exp = claims.expiresAt, now >= exp + leeway {
            return VerificationError(
                .expired,
                detail:
                    "expired at \(Self.number(exp)), \(Self.seconds(now - exp)) before now (leeway \(Self.seconds(leeway)))"
            )
        }
        if let nbf = claims.notBefore, nbf > now + leeway {
            return VerificationError(
                .notYetValid, detail: "not valid before \(Self.number(nbf)), \(Self.seconds(nbf - now)) from now")
        }
        if let iat = claims.issuedAt, iat > now + leeway {
            return VerificationError(
                .issuedInFuture, detail: "issued at \(Self.number(iat)), \(Self.seconds(iat - now)) in the future")
        }
        guard let rawNonce else {
            guard policy.nonceRequirement == .required else { return nil }
            return VerificationError(
                .nonceMissing, detail: "this policy requires the raw nonce of the sign-in, and none was given")
        }
        guard claims.has(.nonce) else {
            if policy.rules.excusesMissingNonce(provider) { return nil }
            return VerificationError(.nonceMissing, detail: "a nonce was expected but the token has none")
        }
        let matches = claims.withBytes(of: .nonce) { Nonce.matches(claim: $0!, rawNonce: rawNonce) }
        guard matches else {
            return VerificationError(.nonceMismatch, detail: "nonce is not the lowercase hex SHA-256 of the raw nonce")
        }
        return nil
    }

    /// Untrusted text quoted for a detail, cut at 60 characters.
    static func quoted(_ text: String) -> String {
        let cut =
            text.unicodeScalars.count > 60
            ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(60))) + "…" : text
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
