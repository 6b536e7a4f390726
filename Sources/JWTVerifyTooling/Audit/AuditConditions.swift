import JWTVerify

/// How an audit judged its tokens: when, and what it checked. Every format states it, and partial
/// reports merge only when theirs are equal.
package struct AuditConditions: Equatable, Sendable {
    /// When tokens were evaluated.
    package enum Evaluation: Equatable, Sendable {
        /// All at one time (`--now`, or the start of the run).
        case at(Double)
        /// Each at its own `iat` (`--at iat`).
        case issuedAt
        /// Each at its own `signedDate` (App Store signed data without `--now`).
        case signedDate
    }

    package var evaluation: Evaluation = .issuedAt
    /// Whether a raw nonce was checked (`--nonce`). Captured tokens come without the raw nonces
    /// their sign-ins started with, so an audit checks none unless told one; nonce anomalies
    /// (no nonce claim, nonces shared by distinct tokens) are reported either way.
    package var nonceChecked = false
    /// Whether `iss` and `aud` were checked against accepted values: an audit may leave them
    /// unchecked (no `--issuer`, no `--audience`), and then counts them instead.
    package var issuerChecked = true
    package var audienceChecked = true
    /// Whether each token brought its own key (App Store signed data: its `x5c` chain): then key
    /// IDs, issuers, audiences, nonces and lifetimes do not apply, and reports leave them out.
    package var keysFromTokens = false

    package init() {}

    /// The evaluation rule in words: "at 2026-01-01T00:00:00Z", "each token at its own iat", ….
    package var evaluationText: String {
        switch evaluation {
        case .at(let time): "at " + Timestamp.format(time)
        case .issuedAt: "each token at its own iat"
        case .signedDate: "each token at its own signedDate"
        }
    }

    /// Writes `"evaluation"` and the checks (`"nonce_checked"`, `"issuer_checked"`,
    /// `"audience_checked"`, `"keys_from_tokens"`).
    func appendJSON(to text: inout OutputText) {
        text.key("evaluation")
        text.beginObject()
        switch evaluation {
        case .at(let time):
            text.member("mode", "now")
            text.key("time")
            text.number(time)
        case .issuedAt:
            text.member("mode", "iat")
        case .signedDate:
            text.member("mode", "signed_date")
        }
        text.endObject()
        text.key("nonce_checked")
        text.bool(nonceChecked)
        text.key("issuer_checked")
        text.bool(issuerChecked)
        text.key("audience_checked")
        text.bool(audienceChecked)
        text.key("keys_from_tokens")
        text.bool(keysFromTokens)
    }

    /// The conditions a saved report or partial wrote (a report saved before a check was written:
    /// the nonce unchecked, issuer and audience checked, keys from key sets).
    init(json members: [String: JSONValue]) throws(AuditReport.ParseFailure) {
        guard case .object(let evaluation)? = members["evaluation"] else {
            throw AuditReport.ParseFailure(message: "\"evaluation\" is not an object")
        }
        switch (evaluation["mode"], evaluation["time"]) {
        case (.string("iat")?, nil): self.evaluation = .issuedAt
        case (.string("signed_date")?, nil): self.evaluation = .signedDate
        case (.string("now")?, .integer(let time)?): self.evaluation = .at(Double(time))
        case (.string("now")?, .number(let time)?): self.evaluation = .at(time)
        default:
            throw AuditReport.ParseFailure(
                message:
                    "\"evaluation\" is not {\"mode\":\"iat\"}, {\"mode\":\"signed_date\"} or {\"mode\":\"now\",\"time\":T}"
            )
        }
        func flag(_ name: String, absent: Bool) throws(AuditReport.ParseFailure) -> Bool {
            switch members[name] {
            case .bool(let checked)?: return checked
            case nil: return absent
            default: throw AuditReport.ParseFailure(message: "\"\(name)\" is not a boolean")
            }
        }
        nonceChecked = try flag("nonce_checked", absent: false)
        issuerChecked = try flag("issuer_checked", absent: true)
        audienceChecked = try flag("audience_checked", absent: true)
        keysFromTokens = try flag("keys_from_tokens", absent: false)
    }
}
