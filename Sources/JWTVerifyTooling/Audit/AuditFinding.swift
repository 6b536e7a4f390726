import JWTVerify

/// Something an auditor acts on, with its evidence. Every format of the report opens with the
/// findings, in ``AuditReport/findings``'s order.
struct AuditFinding {
    /// What was found.
    enum Kind: String {
        /// Distinct tokens carrying the same nonce: one sign-in's token replayed into another.
        case sharedNonce = "shared_nonce"
        /// One token met more than once (``Evidence/first`` and ``Evidence/last`` say where).
        case replayedToken = "replayed_token"
        /// A valid DPoP proof's `jti` met more than once for one key: a proof replayed, or two proofs sharing a `jti`.
        case replayedProof = "replayed_dpop_proof"
        /// An access token bound to a key (`cnf.jkt`) met without a valid proof of that key on its line.
        case unboundAccessToken = "access_token_without_proof"
        /// DPoP proofs whose form or signature failed, by reason.
        case proofRejections = "dpop_proof_rejections"
        /// `alg none`, HMAC, an alg outside the allow-list, an unknown `kid`: forgery attempts or a key rotation missed.
        case algorithmOrKey = "algorithm_or_key"
        /// Other anomalies: no nonce claim, `iat` after the evaluation time, long lifetimes, unverified email.
        case anomaly
        /// Rejections, by reason.
        case rejections
    }

    /// One piece of evidence: a value (a nonce's or token's SHA-256, an anomaly, a reason), how
    /// often, and where first and last.
    struct Evidence {
        let value: String
        let count: Int
        var first: AuditReport.Sighting? = nil
        var last: AuditReport.Sighting? = nil
    }

    let kind: Kind
    let title: String
    /// How many (nonces, tokens, occurrences).
    let count: Int
    /// The evidence, at most ``evidenceLimit`` items.
    let evidence: [Evidence]
    /// Evidence items left out of the list.
    let more: Int

    /// Items of evidence a finding lists at most.
    static let evidenceLimit = 10

    init(_ kind: Kind, _ title: String, count: Int, evidence: [Evidence], total: Int) {
        self.kind = kind
        self.title = title
        self.count = count
        self.evidence = Array(evidence.prefix(Self.evidenceLimit))
        self.more = max(0, total - self.evidence.count)
    }
}

extension AuditReport {
    /// The findings, in the order to act on them: nonces shared by distinct tokens, replayed
    /// tokens, replayed DPoP proofs, access tokens without their proof, proof rejections, alg and
    /// key anomalies, other anomalies, rejections by reason. Empty when nothing calls for action.
    var findings: [AuditFinding] {
        var found: [AuditFinding] = []
        if sharedNonces > 0 {
            let items = sharedNonceList.map {
                AuditFinding.Evidence(
                    value: "nonce sha256 " + $0.fingerprint, count: $0.count, first: $0.first, last: $0.last)
            }
            found.append(
                AuditFinding(
                    .sharedNonce,
                    "Nonces shared by distinct tokens (possible replay): \(sharedNonces) nonce\(sharedNonces == 1 ? "" : "s"), \(tokensSharingNonces) tokens",
                    count: sharedNonces, evidence: items, total: sharedNonces))
        }
        if repeatedTokens > 0 {
            let list = repeats
            let across = list.filter { $0.first.source != $0.last.source }.count
            let items = list.map {
                AuditFinding.Evidence(
                    value: "token sha256 " + $0.fingerprint, count: $0.count, first: $0.first, last: $0.last)
            }
            found.append(
                AuditFinding(
                    .replayedToken,
                    "Tokens seen more than once: \(repeatedTokens) token\(repeatedTokens == 1 ? "" : "s"), \(repeatedOccurrences) extra occurrence\(repeatedOccurrences == 1 ? "" : "s")"
                        + (across > 0 ? " (\(across) listed across sources)" : ""),
                    count: repeatedTokens, evidence: items, total: repeatedTokens))
        }
        found += dpopFindings
        let keyAnomalies: Set<String> = [AuditAnomaly.algNone, .hmac, .algOutsideAllowList, .unknownKeyID].map(
            \.rawValue
        ).reduce(into: []) { $0.insert($1) }
        for (kind, title, selected) in [
            (
                AuditFinding.Kind.algorithmOrKey, "Algorithm and key anomalies",
                anomalies.filter { keyAnomalies.contains($0.key) }
            ),
            (.anomaly, "Other anomalies", anomalies.filter { !keyAnomalies.contains($0.key) }),
            (.rejections, "Rejections by reason", byReason),
        ] where !selected.isEmpty {
            let items = Self.ranked(selected).map { AuditFinding.Evidence(value: $0.0, count: $0.1) }
            let total = selected.values.reduce(0, +)
            found.append(AuditFinding(kind, "\(title): \(total)", count: total, evidence: items, total: items.count))
        }
        return found
    }
}

extension AuditReport.Sighting {
    /// The file a sighting is in (for a `FILE:LINE` tag, its file).
    var source: String {
        switch origin {
        case .line(let file, _): return file
        case .tag(let tag):
            guard let tag, let colon = tag.lastIndex(of: ":"), tag[tag.index(after: colon)...].allSatisfy(\.isNumber)
            else { return tag ?? "?" }
            return String(tag[..<colon])
        }
    }
}

extension AuditFinding {
    /// `{"kind", "title", "count", "evidence": [{"value", "count", "first"?, "last"?}], "more"}`.
    func appendJSON(to text: inout OutputText) {
        text.beginObject()
        text.member("kind", kind.rawValue)
        text.member("title", title)
        text.key("count")
        text.integer(count)
        text.key("evidence")
        text.beginArray()
        for item in evidence {
            text.beginObject()
            text.member("value", item.value)
            text.key("count")
            text.integer(item.count)
            if let first = item.first {
                text.key("first")
                first.appendJSON(to: &text)
            }
            if let last = item.last {
                text.key("last")
                last.appendJSON(to: &text)
            }
            text.endObject()
        }
        text.endArray()
        text.key("more")
        text.integer(more)
        text.endObject()
    }

    /// One evidence line for people: value, count, and where first and last.
    static func line(_ item: Evidence) -> String {
        var line = "\(item.value)  \(item.count)"
        if let first = item.first { line += "  first \(first.text)" }
        if let last = item.last, last.text != item.first?.text { line += "  last \(last.text)" }
        return line
    }
}
