package import JWTVerify

/// The JSON fields every per-token record shares (`verify`, `audit`, `serve`'s `/verify`), written
/// in one order by one helper: `valid`, `reason`, `detail`, `alg`, `kid`, `iss`, `sub`, `aud`,
/// `exp`, `iat`, `claims_verified`.
///
/// The values come from the verifier's ``VerificationOutcome``: for a valid token the verified
/// claims; for a rejected one what the verifier could read on the way, with `claims_verified`
/// `false`. Members that could not be read are `null`.
package enum TokenRecordWriter {
    /// Appends the shared fields of `outcome` to the open object `out`.
    package static func appendVerdict(_ outcome: VerificationOutcome, to out: inout OutputText) {
        switch outcome.result {
        case .success(let token):
            out.literalMembers(#""valid":true,"reason":null,"detail":null"#)
            token.withClaims { claims, _ in
                appendFields(
                    algorithm: token.algorithm.name, keyID: token.keyID, claims: claims, verified: true, to: &out)
            }
        case .failure(let error):
            out.key("valid")
            out.bool(false)
            out.key("reason")
            out.string(error.reason.rawValue)
            out.key("detail")
            out.string(error.detail)
            outcome.withClaims { claims in
                appendFields(
                    algorithm: outcome.algorithm, keyID: outcome.keyID, claims: claims, verified: false, to: &out)
            }
        }
    }

    private static func appendFields(
        algorithm: String?, keyID: String?, claims: borrowing RegisteredClaims, verified: Bool, to out: inout OutputText
    ) {
        out.member("alg", algorithm)
        out.member("kid", keyID)
        out.member("iss", .issuer, of: claims)
        out.member("sub", .subject, of: claims)
        out.audience(claims)
        out.member("exp", claims.expiresAt)
        out.member("iat", claims.issuedAt)
        out.key("claims_verified")
        out.bool(verified)
    }

    /// The shared fields as tab-separated columns (``appendVerdictCells(_:to:)``), in the JSON
    /// order. `aud` is split in two: `aud` holds a string audience, `aud_list` an array's JSON.
    package static let columns = [
        "valid", "reason", "detail", "alg", "kid", "iss", "sub", "aud", "aud_list", "exp", "iat", "claims_verified",
    ]

    /// Appends the shared fields of `outcome` as the cells of ``columns``, each after its tab.
    package static func appendVerdictCells(_ outcome: VerificationOutcome, to out: inout OutputText) {
        out.cellSeparator()
        switch outcome.result {
        case .success(let token):
            out.boolCell(true)
            out.cellSeparator()
            out.cellSeparator()
            token.withClaims { claims, _ in
                appendCells(
                    algorithm: token.algorithm.name, keyID: token.keyID, claims: claims, verified: true, to: &out)
            }
        case .failure(let error):
            out.boolCell(false)
            out.cellSeparator()
            out.stringCell(error.reason.rawValue)
            out.cellSeparator()
            out.stringCell(error.detail)
            outcome.withClaims { claims in
                appendCells(
                    algorithm: outcome.algorithm, keyID: outcome.keyID, claims: claims, verified: false, to: &out)
            }
        }
    }

    private static func appendCells(
        algorithm: String?, keyID: String?, claims: borrowing RegisteredClaims, verified: Bool, to out: inout OutputText
    ) {
        out.cellSeparator()
        out.stringCell(algorithm)
        out.cellSeparator()
        out.stringCell(keyID)
        out.cellSeparator()
        out.stringCell(.issuer, of: claims)
        out.cellSeparator()
        out.stringCell(.subject, of: claims)
        out.cellSeparator()
        let isList = claims.audienceIsList
        if !isList {
            if claims.has(.singleAudience) {
                out.stringCell(.singleAudience, of: claims)
            } else {
                out.stringCell(claims.audience?.first)
            }
        }
        out.cellSeparator()
        if isList, let audience = claims.audience {
            var list = OutputText()
            list.audienceList(audience)
            list.finish().withUnsafeBytes { out.cellText($0) }
        }
        out.cellSeparator()
        out.numberCell(claims.expiresAt)
        out.cellSeparator()
        out.numberCell(claims.issuedAt)
        out.cellSeparator()
        out.boolCell(verified)
    }

    /// Appends `claims` (the provider's typed claims, with `sub`, `sub` again under the name the
    /// provider's profile gives it — `uid`, `app_id`, `phone_number` — and `nonce` where the
    /// profile shows it) and what the claims attach (a notification's `event`), when the policy
    /// has provider rules and the token verified. Members are written in name order, straight
    /// from the typed values.
    package static func appendProviderClaims(
        _ outcome: VerificationOutcome, rules: ProviderRules, to out: inout OutputText
    ) {
        guard let profile = rules.profileType, case .success(let token) = outcome.result else { return }
        token.withClaims { claims, provider in
            withUnsafeMutablePointer(to: &out) { out in
                var writer = ProviderClaimsRecord(
                    out: out, claims: claims, aliasName: profile.subjectAlias, recordsNonce: profile.recordsNonce)
                if provider.box != nil { writer.write(provider) }
            }
        }
    }

    /// Appends `verify`'s record for one input line, followed by a newline: `line`, `file`?, `id`?,
    /// the shared fields, then `claims`/`event` under provider rules.
    package static func appendLineRecord(
        to out: inout OutputText, line: Int, file: String?, idJSON: String?, outcome: VerificationOutcome,
        rules: ProviderRules
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
        out.newline()
    }
}

/// Writes one token's `claims` object (and its attachments) from the provider's typed claims, with
/// the registered members records add to them (`sub`, its alias, `nonce`), all in name order.
private struct ProviderClaimsRecord {
    /// The record being written, lent for the visit.
    let out: UnsafeMutablePointer<OutputText>
    /// The added members not yet written.
    private var added: AddedClaimMembers

    init(
        out: UnsafeMutablePointer<OutputText>, claims: borrowing RegisteredClaims, aliasName: StaticString?,
        recordsNonce: Bool
    ) {
        self.out = out
        added = AddedClaimMembers(
            copy claims, ("sub", .subject), aliasName.map { ($0, .subject) }, recordsNonce ? ("nonce", .nonce) : nil)
    }

    mutating func write(_ claims: ProviderClaims) {
        out.pointee.key("claims")
        out.pointee.beginObject()
        claims.writeMembers(to: out, adding: &added)
        out.pointee.endObject()
        claims.forEachAttachment { name, value in
            out.pointee.key(name)
            out.pointee.append(value)
        }
    }
}
