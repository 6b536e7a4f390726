/// Writes one JSON Lines record describing a verification outcome, the `verify` output contract:
/// `line`, `file`?, `id`?, `valid`, `reason`, `detail`, `alg`, `kid`, `iss`, `sub`, `aud`, `exp`,
/// `iat`, `claims_verified`.
///
/// For a rejected token the claims are read without trust (``UnverifiedToken``) and
/// `claims_verified` is `false`; members that could not be read are `null`.
package enum TokenReport {
    /// Appends the record for `result` to `out`, followed by a newline.
    package static func append(
        to out: inout JSONText,
        line: Int,
        file: String?,
        idJSON: String?,
        token: UnsafeRawBufferPointer,
        result: Result<VerifiedToken, VerificationError>,
        peekLimit: Int,
        profile: ProfileToken? = nil
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
        switch result {
        case .success(let verified):
            out.key("valid")
            out.bool(true)
            out.key("reason")
            out.null()
            out.key("detail")
            out.null()
            appendFields(
                to: &out, algorithm: verified.algorithm.name, keyID: verified.keyID, claims: verified.claims,
                audienceIsArray: verified.claims.audienceIsArray, verified: true)
            if let profile {
                out.key("claims")
                out.append(.object(profile.claims))
                if let event = profile.event {
                    out.key("event")
                    var members: [String: JSONValue] = ["type": .string(event.type)]
                    if let subject = event.subject { members["sub"] = .string(subject) }
                    if let email = event.email { members["email"] = .string(email) }
                    if let isPrivate = event.isPrivateEmail { members["is_private_email"] = .bool(isPrivate) }
                    if let time = event.eventTime { members["event_time"] = .number(time) }
                    out.append(.object(members))
                }
            }
        case .failure(let error):
            out.key("valid")
            out.bool(false)
            out.key("reason")
            out.string(error.reason.rawValue)
            out.key("detail")
            out.string(error.detail)
            let peek = UnverifiedToken(peeking: token, limit: peekLimit)
            appendFields(
                to: &out, algorithm: peek.algorithm, keyID: peek.keyID, claims: peek.claims,
                audienceIsArray: peek.audienceIsArray, verified: false)
        }
        out.endObject()
        out.appendRaw([UInt8(ascii: "\n")])
    }

    /// Appends the record for an input line that held no usable token request.
    package static func appendUnusableLine(
        to out: inout JSONText, line: Int, file: String?, idJSON: String?, reason: VerificationError
    ) {
        append(
            to: &out, line: line, file: file, idJSON: idJSON, token: UnsafeRawBufferPointer(start: nil, count: 0),
            result: .failure(reason), peekLimit: 0)
    }

    private static func appendFields(
        to out: inout JSONText, algorithm: String?, keyID: String?, claims: RegisteredClaims,
        audienceIsArray: Bool, verified: Bool
    ) {
        out.member("alg", algorithm)
        out.member("kid", keyID)
        out.member("iss", claims.issuer)
        out.member("sub", claims.subject)
        out.audience(claims)
        out.member("exp", claims.expiresAt)
        out.member("iat", claims.issuedAt)
        out.key("claims_verified")
        out.bool(verified)
    }
}
