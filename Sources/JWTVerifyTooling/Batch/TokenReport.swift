package import JWTVerify

/// The JSON fields every per-token record shares (`verify`, `audit`, `serve`'s `/verify`), written
/// in one order by one helper: `valid`, `reason`, `detail`, `alg`, `kid`, `iss`, `sub`, `aud`,
/// `exp`, `iat`, `claims_verified`.
///
/// The values come from the verifier's ``VerificationOutcome``: for a valid token the verified
/// claims; for a rejected one what the verifier could read on the way, with `claims_verified`
/// `false`. Members that could not be read are `null`.
package enum TokenReport {
    /// Appends the shared fields of `outcome` to the open object `out`.
    package static func appendVerdict(_ outcome: VerificationOutcome, to out: inout JSONText) {
        out.key("valid")
        switch outcome.result {
        case .success:
            out.bool(true)
            out.key("reason")
            out.null()
            out.key("detail")
            out.null()
        case .failure(let error):
            out.bool(false)
            out.key("reason")
            out.string(error.reason.rawValue)
            out.key("detail")
            out.string(error.detail)
        }
        out.member("alg", outcome.algorithm)
        out.member("kid", outcome.keyID)
        out.member("iss", outcome.claims.issuer)
        out.member("sub", outcome.claims.subject)
        out.audience(outcome.claims)
        out.member("exp", outcome.claims.expiresAt)
        out.member("iat", outcome.claims.issuedAt)
        out.key("claims_verified")
        out.bool(outcome.verified)
    }

    /// Appends `claims` (the provider's typed claims, with `sub`, and `uid` for Firebase) and, for
    /// a notification, `event`, when the policy has provider rules and the token verified.
    package static func appendProviderClaims(_ outcome: VerificationOutcome, rules: ProviderRules, to out: inout JSONText) {
        guard rules != .none, let token = outcome.token else { return }
        var members = token.provider.members
        if let subject = token.claims.subject {
            members["sub"] = .string(subject)
            if case .firebase = rules { members["uid"] = .string(subject) }
        }
        if case .appleIdentityToken = rules, let nonce = token.claims.nonce { members["nonce"] = .string(nonce) }
        out.key("claims")
        out.append(.object(members))
        if let event = token.provider.event {
            out.key("event")
            out.append(.object(event.members))
        }
    }

    /// Appends `verify`'s record for one input line, followed by a newline: `line`, `file`?, `id`?,
    /// the shared fields, then `claims`/`event` under provider rules.
    package static func appendLineRecord(
        to out: inout JSONText, line: Int, file: String?, idJSON: String?, outcome: VerificationOutcome, rules: ProviderRules
    ) {
        out.beginObject()
        out.key("line")
        out.integer(line)
        if let file {
            out.key("file")
            out.string(file)
        }
        if let idJSON {
            out.key("id")
            out.rawValue(idJSON)
        }
        appendVerdict(outcome, to: &out)
        appendProviderClaims(outcome, rules: rules, to: &out)
        out.endObject()
        out.appendRaw(CollectionOfOne(UInt8(ascii: "\n")))
    }
}
