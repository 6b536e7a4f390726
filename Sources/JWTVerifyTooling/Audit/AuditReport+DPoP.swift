import JWTVerify

/// What a report keeps of DPoP proofs and bound access tokens: proof counts and verdicts, each
/// valid proof's replay key (its key's thumbprint and `jti`) with where it was first and last
/// met, and the bound access tokens met without a proof of their key on their line.
extension AuditReport {
    /// A valid proof's replay key as tracked.
    struct ProofSighting {
        /// The replay key's hex.
        let key: String
        let jti: String
        let thumbprint: String
        var count: Int
        let first: Place
        var last: Place
    }

    /// An access token bound to a key (`cnf.jkt`) met without a valid proof of that key on its line.
    struct UnboundUse {
        let fingerprint: String
        let thumbprint: String
        let sighting: Sighting
    }

    /// Counts proofs whose records were written elsewhere (`--format jsonl`).
    package mutating func countProofs(_ proofs: Int, valid: Int) {
        self.proofs += proofs
        validProofs += valid
    }

    /// Adds one proof: its verdict, and for a valid one its replay key.
    package mutating func add(_ proof: AuditProof) {
        proofs += 1
        guard let replayKey = proof.replayKey, let jti = proof.form.jti, let thumbprint = proof.form.thumbprint else {
            if let error = proof.form.error { proofReasons[error.reason.rawValue, default: 0] += 1 }
            return
        }
        validProofs += 1
        let here = place(Sighting(origin: proof.origin, column: proof.column))
        let key = DigestKey(replayKey)
        if proofSightings[key] != nil {
            proofSightings[key]!.count += 1
            proofSightings[key]!.last = here
        } else if proofSightings.count < Self.trackingLimit {
            proofSightings[key] = ProofSighting(
                key: replayKey.hex, jti: jti, thumbprint: thumbprint, count: 1, first: here, last: here)
            proofOrder.append(key)
        } else {
            trackingCapped = true
        }
    }

    /// Counts a token's kind, and a bound access token met without its proof.
    mutating func addKind(_ record: AuditRecord) {
        byKind[record.kind.rawValue, default: 0] += 1
        guard let thumbprint = record.boundKey, !record.proofOnLine else { return }
        unboundUses += 1
        if unboundList.count < Self.listLimit {
            unboundList.append(
                UnboundUse(
                    fingerprint: record.fingerprint.hex, thumbprint: thumbprint,
                    sighting: Sighting(origin: record.origin, column: record.column)))
        }
    }

    /// Untrusted text (a proof's `jti`) as evidence shows it: control characters as `?`, at most
    /// 80 characters, so a line of a report stays one line.
    static func shown(_ text: String) -> String {
        let scalars = text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }
        return String(scalars) + (text.unicodeScalars.count > 80 ? "…" : "")
    }

    /// Replay keys met more than once, in the order first met.
    var replayedProofs: [ProofSighting] {
        proofOrder.compactMap { proofSightings[$0] }.filter { $0.count > 1 }
    }

    /// The findings about DPoP: proofs replayed (a `jti` of one key met more than once), access
    /// tokens without their proof, proof refusals by reason.
    var dpopFindings: [AuditFinding] {
        var found: [AuditFinding] = []
        let replayed = replayedProofs
        if !replayed.isEmpty {
            let extra = replayed.reduce(0) { $0 + $1.count - 1 }
            let items = replayed.map {
                AuditFinding.Evidence(
                    value: "dpop jti \(Self.shown($0.jti)) jkt \(Self.shown($0.thumbprint))", count: $0.count,
                    first: sighting($0.first),
                    last: sighting($0.last))
            }
            found.append(
                AuditFinding(
                    .replayedProof,
                    "DPoP proofs replayed (a jti of one key seen more than once): \(replayed.count) jti, "
                        + "\(extra) extra occurrence\(extra == 1 ? "" : "s")",
                    count: replayed.count, evidence: items, total: replayed.count))
        }
        if unboundUses > 0 {
            let items = unboundList.map {
                AuditFinding.Evidence(
                    value: "token sha256 \($0.fingerprint) cnf.jkt \($0.thumbprint)", count: 1, first: $0.sighting)
            }
            found.append(
                AuditFinding(
                    .unboundAccessToken,
                    "Access tokens bound to a key (cnf.jkt) without a valid proof of it on their line: \(unboundUses)",
                    count: unboundUses, evidence: items, total: unboundUses))
        }
        if !proofReasons.isEmpty {
            let items = Self.ranked(proofReasons).map { AuditFinding.Evidence(value: $0.0, count: $0.1) }
            let total = proofReasons.values.reduce(0, +)
            found.append(
                AuditFinding(
                    .proofRejections, "DPoP proof rejections by reason: \(total)", count: total, evidence: items,
                    total: items.count))
        }
        return found
    }

    /// `"dpop_proofs": {"found", "valid", "rejected", "by_reason", "sightings", "unbound",
    /// "unbound_list"}` and `"by_kind"`. `sightings` are the valid proofs' replay keys
    /// (`{"key", "jti", "jkt", "count", "first", "last"}`): for a partial (`allSightings`) every
    /// one, for the merge to find replays across parts; for a report the replayed ones, which
    /// `audit render` reads back.
    func appendDPoPJSON(to text: inout OutputText, allSightings: Bool) {
        text.key("dpop_proofs")
        text.beginObject()
        text.key("found")
        text.integer(proofs)
        text.key("valid")
        text.integer(validProofs)
        text.key("rejected")
        text.integer(proofs - validProofs)
        Self.appendCounts("by_reason", proofReasons, to: &text)
        text.key("sightings")
        text.beginArray()
        for key in proofOrder {
            guard let seen = proofSightings[key], allSightings || seen.count > 1 else { continue }
            text.beginObject()
            text.member("key", seen.key)
            text.member("jti", seen.jti)
            text.member("jkt", seen.thumbprint)
            text.key("count")
            text.integer(seen.count)
            text.key("first")
            sighting(seen.first).appendJSON(to: &text)
            text.key("last")
            sighting(seen.last).appendJSON(to: &text)
            text.endObject()
        }
        text.endArray()
        text.key("unbound")
        text.integer(unboundUses)
        text.key("unbound_list")
        text.beginArray()
        for use in unboundList {
            text.beginObject()
            text.member("fingerprint", use.fingerprint)
            text.member("jkt", use.thumbprint)
            text.key("first")
            use.sighting.appendJSON(to: &text)
            text.endObject()
        }
        text.endArray()
        text.endObject()
        Self.appendCounts("by_kind", byKind, to: &text)
    }

    /// Adds what ``appendDPoPJSON(to:allSightings:)`` wrote (a partial merged after the ones
    /// before it, or a saved report read back); nothing when `members` has none (a partial or
    /// report written before proofs were told apart).
    mutating func addDPoP(_ members: [String: JSONValue]) throws(ParseFailure) {
        if members["by_kind"] != nil {
            for (kind, count) in try Self.counts(members, "by_kind") { byKind[kind, default: 0] += count }
        }
        guard let value = members["dpop_proofs"] else { return }
        guard case .object(let dpop) = value, case .integer(let found)? = dpop["found"],
            case .integer(let valid)? = dpop["valid"], case .array(let sightings)? = dpop["sightings"],
            case .integer(let unbound)? = dpop["unbound"], case .array(let unboundItems)? = dpop["unbound_list"]
        else { throw ParseFailure(message: "\"dpop_proofs\" lacks its counts, sightings or unbound list") }
        proofs += Int(found)
        validProofs += Int(valid)
        for (reason, count) in try Self.counts(dpop, "by_reason") { proofReasons[reason, default: 0] += count }
        for item in sightings {
            guard case .object(let fields) = item, case .string(let hex)? = fields["key"],
                let key = DigestKey(hex: hex), case .string(let jti)? = fields["jti"],
                case .string(let thumbprint)? = fields["jkt"], case .integer(let count)? = fields["count"]
            else { throw ParseFailure(message: "a DPoP proof sighting lacks its key, jti, jkt or count") }
            let first = place(try Self.sighting(fields["first"]))
            let last = place(try Self.sighting(fields["last"]))
            if proofSightings[key] != nil {
                proofSightings[key]!.count += Int(count)
                proofSightings[key]!.last = last
            } else if proofSightings.count < Self.trackingLimit {
                proofSightings[key] = ProofSighting(
                    key: hex, jti: jti, thumbprint: thumbprint, count: Int(count), first: first, last: last)
                proofOrder.append(key)
            } else {
                trackingCapped = true
            }
        }
        unboundUses += Int(unbound)
        for item in unboundItems where unboundList.count < Self.listLimit {
            guard case .object(let fields) = item, case .string(let fingerprint)? = fields["fingerprint"],
                case .string(let thumbprint)? = fields["jkt"]
            else { throw ParseFailure(message: "an unbound access token lacks its fingerprint or jkt") }
            unboundList.append(
                UnboundUse(
                    fingerprint: fingerprint, thumbprint: thumbprint, sighting: try Self.sighting(fields["first"])))
        }
    }

    /// The report's lines on access tokens (among the tokens) and proofs (apart from them), for
    /// people: each only when there are some.
    func dpopSummary(markdown: Bool) -> String {
        let end = markdown ? ".\n\n" : "\n\n"
        let access = byKind[AuditTokenKind.accessToken.rawValue] ?? 0
        var out = ""
        if access > 0 {
            out += "Among them \(access) access token occurrence\(access == 1 ? "" : "s") (typ at+jwt)" + end
        }
        if proofs > 0 {
            out +=
                "\(proofs) DPoP proof\(proofs == 1 ? "" : "s") (typ dpop+jwt), apart from the tokens: "
                + "\(validProofs) valid, \(proofs - validProofs) rejected" + end
        }
        return out
    }
}
