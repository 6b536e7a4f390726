import JWTVerify

/// The report as text for people: `--format table` and `--format markdown`.
extension AuditReport {
    /// `--format table` (`markdown: false`) or `--format markdown`.
    package func render(markdown: Bool) -> String {
        var out = markdown ? "# Token audit\n\n" : "TOKEN AUDIT\n\n"
        let distinct = tokens - repeatedOccurrences
        let found =
            "\(tokens) occurrence\(tokens == 1 ? "" : "s") of \(distinct) distinct token\(distinct == 1 ? "" : "s")"
        out +=
            markdown
            ? "**\(found)**: **\(valid)** valid, **\(tokens - valid)** rejected.\n\n"
            : "\(found): \(valid) valid, \(tokens - valid) rejected\n\n"
        out += dpopSummary(markdown: markdown)
        out += "Evaluated \(conditions.evaluationText).\n\n"
        if !conditions.keysFromTokens {
            let unchecked = [
                conditions.issuerChecked ? nil : "Issuers", conditions.audienceChecked ? nil : "Audiences",
            ].compactMap { $0 }
            if !unchecked.isEmpty {
                out +=
                    "\(unchecked.joined(separator: " and ")) were not checked (no --issuer or --audience): they are counted below.\n\n"
            }
            if !conditions.nonceChecked {
                out +=
                    markdown
                    ? "Nonces were not checked: captured tokens come without their raw nonces. Nonce anomalies are listed below.\n\n"
                    : "Nonces were not checked: captured tokens come without their raw nonces.\nNonce anomalies are listed below.\n\n"
            }
        }
        let findings = self.findings
        out += markdown ? "## Findings\n\n" : "FINDINGS\n"
        if findings.isEmpty {
            out += markdown ? "None: nothing calls for action.\n\n" : "  none: nothing calls for action\n\n"
        }
        for (index, finding) in findings.enumerated() {
            out += markdown ? "\(index + 1). **\(finding.title)**\n" : "  \(index + 1). \(finding.title)\n"
            for item in finding.evidence {
                let line = AuditFinding.line(item)
                out += markdown ? "    - `\(line.replacingOccurrences("`", "'"))`\n" : "       \(line)\n"
            }
            if finding.more > 0 {
                out += markdown ? "    - … and \(finding.more) more\n" : "       … and \(finding.more) more\n"
            }
        }
        if !findings.isEmpty { out += "\n" }
        out += markdown ? "## Statistics\n\n" : "STATISTICS\n\n"
        func section(_ title: String, _ rows: [(String, Int)]) {
            guard !rows.isEmpty else { return }
            if markdown {
                out += "## \(title)\n\n| | count |\n| --- | ---: |\n"
                for (name, count) in rows { out += "| \(name.replacingOccurrences("|", "\\|")) | \(count) |\n" }
            } else {
                out += "\(title)\n"
                for (name, count) in rows { out += "  \(name.padding(40)) \(count)\n" }
            }
            out += "\n"
        }
        section("By reason", Self.ranked(byReason))
        if !conditions.keysFromTokens {
            section("By kid", Self.ranked(byKeyID))
            section("By issuer", Self.ranked(byIssuer))
            section("By audience", Self.ranked(byAudience))
            section(
                "Lifetime (exp - iat)",
                Self.lifetimeBuckets.compactMap { bucket in lifetimes[bucket].map { (bucket, $0) } })
        }
        for (name, title) in ProviderRegistry.reportFacets {
            if let counts = facets[name] { section(title, Self.ranked(counts)) }
        }
        section("Repeats", repeatRows)
        section("Discarded candidates", Self.ranked(discarded))
        let rejectedRows = tableRows.filter { !$0.valid }
        if !rejectedRows.isEmpty {
            let shown = rejectedRows.prefix(Self.textRowLimit)
            let title = "Rejected occurrences (the first \(shown.count) of \(tokens - valid), in input order)"
            if markdown {
                out +=
                    "## \(title)\n\n| where | found in | reason | kid | fingerprint |\n| --- | --- | --- | --- | --- |\n"
                for row in shown {
                    let cells = [
                        Sighting(origin: row.origin, column: row.column).text, row.foundIn, row.reason ?? "",
                        row.keyID ?? "", String(row.fingerprint.prefix(16)),
                    ]
                    out += "| " + cells.map { $0.replacingOccurrences("|", "\\|") }.joined(separator: " | ") + " |\n"
                }
            } else {
                out += "\(title)\n"
                let places = shown.map { Sighting(origin: $0.origin, column: $0.column).text }
                let placeWidth = min(60, places.map(\.count).max() ?? 0)
                let foundWidth = min(30, shown.map(\.foundIn.count).max() ?? 0)
                for (row, place) in zip(shown, places) {
                    out +=
                        "  " + place.padding(placeWidth) + "  " + row.foundIn.padding(foundWidth) + "  "
                        + (row.reason ?? "").padding(18) + " " + (row.keyID ?? "-").padding(12) + " "
                        + row.fingerprint.prefix(16) + "\n"
                }
            }
            out += "\n"
        }
        if trackingCapped { out += "(repeat tracking stopped at \(Self.trackingLimit) distinct values)\n" }
        return out
    }
}

extension String {
    /// The text padded with spaces to `width` characters (as is when longer), for columns.
    package func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// The text with every `target` replaced by `replacement`.
    package func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
