package import JWTVerify

/// One token found by `audit`, evaluated.
package struct AuditRecord: Sendable {
    private(set) var origin: AuditOrigin
    let column: Int
    /// What the text before the token says it was (`found_in`: `bearer`, `json:KEY`, …).
    let place: TokenExtractor.Place
    /// The token itself, kept only when its record is to show it (`--show-tokens`).
    let token: [UInt8]?
    let fingerprint: SHA256Digest
    /// The verdict and what the verifier read on the way (verified claims for a valid token).
    package let outcome: VerificationOutcome
    let keySource: String?
    /// SHA-256 of the `nonce` claim's UTF-8, when there is one.
    let nonceDigest: SHA256Digest?
    /// What is worth a look about the token, in a fixed order.
    let anomalies: [AuditAnomaly]
    /// `exp - iat`, when both are there.
    let lifetime: Double?
    /// A token or an access token (a proof is an ``AuditProof``).
    package let kind: AuditTokenKind
    /// An access token's `cnf.jkt`, read without trust: the key it is bound to.
    package let boundKey: String?
    /// Whether a valid DPoP proof of ``boundKey``'s key is on the same line (or piece of a line).
    package let proofOnLine: Bool

    package init(
        origin: AuditOrigin, column: Int, place: TokenExtractor.Place, token: UnsafeRawBufferPointer,
        keepingToken: Bool,
        outcome: VerificationOutcome, keySource: String?, allowList: Set<SignatureAlgorithm>,
        kind: AuditTokenKind = .token, boundKey: String? = nil, proofOnLine: Bool = false
    ) {
        self.kind = kind
        self.boundKey = boundKey
        self.proofOnLine = proofOnLine
        self.origin = origin
        self.column = column
        self.place = place
        self.token = keepingToken ? Array(token) : nil
        self.fingerprint = outcome.fingerprint ?? SHA256Digest(hashing: token)
        self.keySource = keySource
        // One borrow of the claims for everything the record derives from them; the outcome
        // itself moves into the record last, so it is not copied.
        (nonceDigest, lifetime, anomalies) = outcome.withClaims { claims in
            let lifetime = claims.expiresAt.flatMap { exp in claims.issuedAt.map { exp - $0 } }
            let nonceDigest = claims.withBytes(of: .nonce) { $0.map(SHA256Digest.init(hashing:)) }
            return (nonceDigest, lifetime, Self.anomalies(outcome, claims, allowList: allowList))
        }
        self.outcome = outcome
    }

    /// The record with its tag named by `listing` (``AuditListing/named(_:)``), as one run over
    /// the listed files would have placed it.
    package func named(by listing: AuditListing) -> AuditRecord {
        guard case .tag = origin else { return self }
        var named = self
        named.origin = listing.named(origin)
        return named
    }

    /// The things worth a look about a token, each counted in the report and listed in its record.
    static func anomalies(
        _ outcome: VerificationOutcome, _ claims: borrowing RegisteredClaims, allowList: Set<SignatureAlgorithm>
    ) -> [AuditAnomaly] {
        var found: [AuditAnomaly] = []
        if outcome.verified {
            // A verified token's alg is on the allow-list by construction: only the claim checks remain.
        } else {
            let alg = outcome.algorithm ?? ""
            let isNone = alg.utf8.count == 4 && alg.lowercased() == "none"
            if isNone { found.append(.algNone) }
            if alg.hasPrefix("HS") { found.append(.hmac) }
            if !alg.isEmpty, !isNone, !alg.hasPrefix("HS"),
                SignatureAlgorithm(name: alg).map({ !allowList.contains($0) }) ?? true
            {
                found.append(.algOutsideAllowList)
            }
        }
        if outcome.error?.reason == .unknownKeyID { found.append(.unknownKeyID) }
        if !claims.has(.nonce) { found.append(.noNonce) }
        if let iat = claims.issuedAt, let at = outcome.evaluatedAt, iat > at { found.append(.issuedAfterEvaluation) }
        if let exp = claims.expiresAt, let iat = claims.issuedAt, exp - iat > 86_400 {
            found.append(.lifetimeOver24Hours)
        }
        if outcome.emailVerified == false { found.append(.emailNotVerified) }
        return found
    }

    /// Appends the JSON Lines record (`--format jsonl`): where it was found, its `kind` (for an
    /// access token, also `cnf_jkt` and `proof_on_line`), the fields every record shares, then the
    /// audit's own, and the token when the record kept it.
    package func appendJSON(to text: inout OutputText, rules: ProviderRules) {
        text.beginObject()
        origin.appendJSON(to: &text)
        text.key("column")
        text.integer(column)
        text.key("found_in")
        text.string(place.description)
        text.member("kind", kind.rawValue)
        if kind == .accessToken {
            text.member("cnf_jkt", boundKey)
            text.key("proof_on_line")
            text.bool(proofOnLine)
        }
        TokenRecordWriter.appendVerdict(outcome, to: &text)
        TokenRecordWriter.appendProviderClaims(outcome, rules: rules, to: &text)
        text.member("key_source", keySource)
        text.member("lifetime", lifetime)
        text.member("evaluated_at", outcome.evaluatedAt)
        text.key("fingerprint")
        text.hexString(fingerprint)
        text.key("nonce_fingerprint")
        if let nonceDigest { text.hexString(nonceDigest) } else { text.null() }
        text.key("anomalies")
        text.beginArray()
        for anomaly in anomalies { text.string(anomaly.rawValue) }
        text.endArray()
        if let token {
            text.key("token")
            text.string(token)
        }
        text.endObject()
        text.newline()
    }
}

extension AuditRecord {
    /// The columns of `--format tsv`, in the jsonl record's order: `discarded` (empty for a token,
    /// the reason for a `--discards` row), where, `column`, the fields every record shares (with
    /// `aud` split in `aud` and `aud_list`), the audit's own (`anomalies` joined with commas), and
    /// `token` with `--show-tokens`. The provider claims of a jsonl record are not columns.
    package static func columns(tagged: Bool, showTokens: Bool) -> [String] {
        ["discarded"] + AuditOrigin.columns(tagged: tagged) + ["column", "found_in"] + TokenRecordWriter.columns
            + ["key_source", "lifetime", "evaluated_at", "fingerprint", "nonce_fingerprint", "anomalies"]
            + (showTokens ? ["token"] : [])
    }

    /// Appends the TSV row (`--format tsv`): the cells of ``columns(tagged:showTokens:)``.
    package func appendCells(to text: inout OutputText) {
        origin.appendCells(to: &text)
        text.cellSeparator()
        text.integerCell(column)
        text.cellSeparator()
        text.stringCell(place.description)
        TokenRecordWriter.appendVerdictCells(outcome, to: &text)
        text.cellSeparator()
        text.stringCell(keySource)
        text.cellSeparator()
        text.numberCell(lifetime)
        text.cellSeparator()
        text.numberCell(outcome.evaluatedAt)
        text.cellSeparator()
        text.hexCell(fingerprint)
        text.cellSeparator()
        text.hexCell(nonceDigest)
        text.cellSeparator()
        for (index, anomaly) in anomalies.enumerated() {
            var words = anomaly.rawValue
            if index > 0 { text.appendRaw(",".utf8) }
            words.withUTF8 { text.cellText(UnsafeRawBufferPointer($0)) }
        }
        if let token {
            text.cellSeparator()
            token.withUnsafeBytes { text.cellText($0) }
        }
        text.newline()
    }
}
