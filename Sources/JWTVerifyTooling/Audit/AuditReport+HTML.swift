import JWTVerify

/// The report as one self-contained HTML page.
extension AuditReport {
    /// `--format html`: one self-contained page. Inline CSS, inline SVG charts with text labels, a
    /// few lines of inline script for the per-token table, and no script, style, font or image
    /// from anywhere else (a Content-Security-Policy forbids it), so it opens offline and can be
    /// mailed. It embeds exactly `json()` as
    /// `<script type="application/json" id="report-data">`, and every chart and table is drawn
    /// from those same counts. Token strings (kids, audiences, issuers) are HTML-escaped.
    package func html() -> String {
        var page = HTMLText()
        page.raw(
            """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
            <title>Token audit</title>
            <style>
            :root { --valid: #1b7f3b; --rejected: #b3261e; --bar: #3b5b92; --muted: #5f6368; --line: #dadce0; }
            * { box-sizing: border-box; }
            body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #202124; margin: 0 auto; max-width: 1200px; padding: 16px; }
            h1 { font-size: 1.6em; margin: 0 0 4px; } h2 { font-size: 1.15em; margin: 0 0 8px; }
            .note { color: var(--muted); margin: 0 0 16px; }
            .summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 8px; margin: 0 0 16px; padding: 0; }
            .summary div { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
            .summary dt { color: var(--muted); font-size: .85em; } .summary dd { margin: 0; font-size: 1.5em; font-weight: 600; }
            .summary .valid dd { color: var(--valid); } .summary .rejected dd { color: var(--rejected); } .summary .evaluation dd { font-size: 1em; }
            .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; margin-top: 16px; }
            section.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; break-inside: avoid; }
            svg { width: 100%; height: auto; display: block; } svg text { font: 13px system-ui, sans-serif; fill: #202124; }
            svg .count { fill: var(--muted); } .empty { color: var(--muted); font-style: italic; }
            table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); }
            td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
            #tokens th { cursor: pointer; user-select: none; } #tokens td { font-size: .9em; } #tokens code { font-size: .95em; }
            .controls { margin: 0 0 8px; } tr.rejected td.verdict { color: var(--rejected); } tr.valid td.verdict { color: var(--valid); }
            .scroll { overflow-x: auto; max-width: 100%; } .card { min-width: 0; }
            section.findings { margin-bottom: 16px; } .findings ol { margin: 0; padding-left: 1.4em; } .findings li { margin: 2px 0; overflow-wrap: anywhere; } .findings code { word-break: break-all; }
            @media (max-width: 600px) { .grid { grid-template-columns: 1fr; } body { padding: 8px; } td code, #tokens td { word-break: break-all; } }
            @media print { body { max-width: none; } section.card { border-color: #999; } }
            </style>
            </head>
            <body>
            <header>
            <h1>Token audit</h1>

            """)
        page.raw(
            "<p class=\"note\">From <code>jwtverify audit</code>. \(tokens) occurrence\(tokens == 1 ? "" : "s") of compact JWS found and evaluated.</p>\n</header>\n"
        )
        page.raw("<dl class=\"summary\" aria-label=\"Summary\">\n")
        var summary = [
            ("Occurrences", "\(tokens)", ""), ("Distinct tokens", "\(tokens - repeatedOccurrences)", ""),
            ("Valid", "\(valid)", "valid"),
            ("Rejected", "\(tokens - valid)", "rejected"), ("Evaluated", conditions.evaluationText, "evaluation"),
        ]
        let accessTokens = byKind[AuditTokenKind.accessToken.rawValue] ?? 0
        if accessTokens > 0 { summary.append(("Access tokens", "\(accessTokens)", "")) }
        if proofs > 0 {
            summary.append(
                ("DPoP proofs", "\(proofs): \(validProofs) valid, \(proofs - validProofs) rejected", "evaluation"))
        }
        if !conditions.keysFromTokens {
            summary.append(
                (
                    "Nonces",
                    conditions.nonceChecked ? "checked against --nonce" : "not checked: no raw nonces in captures",
                    "evaluation"
                ))
            summary.append(
                (
                    "Issuer and audience",
                    conditions.issuerChecked && conditions.audienceChecked
                        ? "checked"
                        : "not checked: "
                            + [
                                conditions.issuerChecked ? nil : "issuer",
                                conditions.audienceChecked ? nil : "audience",
                            ].compactMap { $0 }.joined(separator: ", ")
                            + " counted", "evaluation"
                ))
        }
        for (name, value, style) in summary {
            page.raw("<div class=\"\(style)\"><dt>\(name)</dt><dd>")
            page.text(value)
            page.raw("</dd></div>\n")
        }
        page.raw("</dl>\n")
        page.findings(findings)
        page.raw("<section class=\"card\" aria-labelledby=\"verdicts\"><h2 id=\"verdicts\">Verdicts</h2>\n")
        page.stackedBar(valid: valid, rejected: tokens - valid)
        page.raw("</section>\n")
        page.timeline(timeline, withoutIssuedAt: withoutIssuedAt)
        page.raw("<div class=\"grid\">\n")
        page.chart("reasons", "Rejections by reason", Self.rankedRows(byReason))
        if !conditions.keysFromTokens {
            page.chart("kids", "By kid", Self.rankedRows(byKeyID))
            page.chart("audiences", "By audience", Self.rankedRows(byAudience))
            page.chart("issuers", "By issuer", Self.rankedRows(byIssuer))
            page.chart(
                "lifetimes", "Lifetimes (exp − iat)",
                Self.lifetimeBuckets.compactMap { bucket in lifetimes[bucket].map { (bucket, $0) } })
        }
        for (name, title) in ProviderRegistry.reportFacets {
            if let counts = facets[name] {
                page.chart("app-store-" + String(name.map { $0 == "_" ? "-" : $0 }), title, Self.rankedRows(counts))
            }
        }
        page.chart("anomalies", "Anomalies worth a look", Self.rankedRows(anomalies.merging(findingRows) { a, _ in a }))
        page.table("repeats", "Repeats", repeatRows, header: "")
        page.table("discarded", "Discarded fragments by cause", Self.rankedRows(discarded), header: "cause")
        page.raw("</div>\n")
        page.sightings("repeated", "Repeated tokens", "occurrences", repeats)
        if !conditions.keysFromTokens {
            page.sightings("shared", "Nonces shared by distinct tokens (possible replay)", "tokens", sharedNonceList)
        }
        page.tokensTable(tableRows, omitted: tableOmitted, reasons: Self.rankedRows(byReason).map(\.0))
        if trackingCapped {
            page.raw("<p class=\"note\">Repeat tracking stopped at \(Self.trackingLimit) distinct values.</p>\n")
        }
        // The report itself, exactly as --format json prints it ("</" written "<\/" so the page's
        // parser cannot end the element early; JSON reads both the same).
        page.raw("<script type=\"application/json\" id=\"report-data\">")
        page.raw(json().replacingOccurrences("</", "<\\/"))
        page.raw("</script>\n</body>\n</html>\n")
        return page.text
    }

    /// Counts by count, then name.
    static func rankedRows(_ counts: [String: Int]) -> [(String, Int)] {
        counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    }
}

/// HTML being written: raw markup, or text escaped for element content and attribute values.
private struct HTMLText {
    var text = ""

    mutating func raw(_ markup: String) { text += markup }

    mutating func text(_ value: String) { text += Self.escape(value) }

    static func escape(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for character in value {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Valid and rejected as one bar, each part labelled with its count and share.
    mutating func stackedBar(valid: Int, rejected: Int) {
        let total = max(1, valid + rejected)
        let validWidth = Double(valid) / Double(total) * 1160
        raw("<svg viewBox=\"0 0 1200 56\" role=\"img\" aria-label=\"\(valid) valid, \(rejected) rejected\">")
        raw("<rect x=\"20\" y=\"6\" width=\"\(Self.fixed(validWidth))\" height=\"22\" fill=\"var(--valid)\"/>")
        raw(
            "<rect x=\"\(Self.fixed(20 + validWidth))\" y=\"6\" width=\"\(Self.fixed(1160 - validWidth))\" height=\"22\" fill=\"var(--rejected)\"/>"
        )
        raw("<text x=\"20\" y=\"48\">valid \(valid) (\(Self.percent(valid, total)))</text>")
        raw(
            "<text x=\"1180\" y=\"48\" text-anchor=\"end\">rejected \(rejected) (\(Self.percent(rejected, total)))</text></svg>\n"
        )
    }

    /// Tokens or nonces met more than once, by fingerprint, with their first and last sighting.
    mutating func sightings(_ id: String, _ title: String, _ countName: String, _ items: [AuditReport.Repeat]) {
        guard openCard(id, title, empty: items.isEmpty, spaced: true) else { return }
        if items.count == AuditReport.listLimit {
            raw("<p class=\"note\">The first \(AuditReport.listLimit), most frequent first.</p>\n")
        }
        raw(
            "<div class=\"scroll\"><table><thead><tr><th scope=\"col\">fingerprint</th><th scope=\"col\" class=\"n\">\(countName)</th><th scope=\"col\">first seen</th><th scope=\"col\">last seen</th></tr></thead><tbody>\n"
        )
        for item in items {
            raw(
                "<tr><td><code title=\"\(item.fingerprint)\">\(item.fingerprint.prefix(16))</code></td><td class=\"n\">\(item.count)</td><td>"
            )
            text(Self.place(item.first))
            raw("</td><td>")
            text(Self.place(item.last))
            raw("</td></tr>\n")
        }
        raw("</tbody></table></div>\n</section>\n")
    }

    static func place(_ sighting: AuditReport.Sighting) -> String { sighting.text }

    /// The findings, first on the page: each with its evidence; "none" only when there are none.
    mutating func findings(_ findings: [AuditFinding]) {
        raw("<section class=\"card findings\" aria-labelledby=\"findings\"><h2 id=\"findings\">Findings</h2>\n")
        guard !findings.isEmpty else { return raw("<p class=\"empty\">none: nothing calls for action</p></section>\n") }
        raw("<ol>\n")
        for finding in findings {
            raw("<li data-kind=\"\(finding.kind.rawValue)\"><strong>")
            text(finding.title)
            raw("</strong><ul>\n")
            for item in finding.evidence {
                raw("<li><code>")
                text(item.value.count > 80 ? String(item.value.prefix(79)) + "…" : item.value)
                raw("</code> \(item.count)")
                if let first = item.first {
                    raw(", first ")
                    text(first.text)
                }
                if let last = item.last, last.text != item.first?.text {
                    raw(", last ")
                    text(last.text)
                }
                raw("</li>\n")
            }
            if finding.more > 0 { raw("<li>… and \(finding.more) more</li>\n") }
            raw("</ul></li>\n")
        }
        raw("</ol>\n</section>\n")
    }

    /// The per-token table, filterable by reason and sortable by column (inline script), with the
    /// initial filter also taken from `#reason=CODE` in the address.
    mutating func tokensTable(_ rows: [AuditReport.TableRow], omitted: Int, reasons: [String]) {
        raw(
            "<section class=\"card\" aria-labelledby=\"tokens-title\" style=\"margin-top:16px\"><h2 id=\"tokens-title\">Tokens</h2>\n"
        )
        raw(
            "<p class=\"note\" id=\"tokens-count\">\(rows.count) shown (the first \(AuditReport.tableLimit) rejected and the first \(AuditReport.tableLimit) valid, in input order)"
        )
        if omitted > 0 { raw("; \(omitted) left out: <code>--format jsonl</code> has every one") }
        raw(
            ".</p>\n<p class=\"controls\"><label for=\"reason-filter\">Show</label> <select id=\"reason-filter\"><option value=\"\">every verdict</option><option value=\"valid\">valid</option>"
        )
        for reason in reasons {
            raw("<option value=\"")
            text(reason)
            raw("\">")
            text(reason)
            raw("</option>")
        }
        raw("</select></p>\n<div class=\"scroll\"><table id=\"tokens\"><thead><tr>")
        for (index, name) in ["fingerprint", "where", "found in", "verdict", "reason", "kid", "aud", "iat"].enumerated()
        {
            raw("<th scope=\"col\" data-column=\"\(index)\">\(name)</th>")
        }
        raw("</tr></thead><tbody>\n")
        for row in rows {
            let reason = row.reason ?? ""
            raw("<tr class=\"\(row.valid ? "valid" : "rejected")\" data-reason=\"")
            text(row.valid ? "valid" : reason)
            raw("\"><td><code title=\"\(row.fingerprint)\">\(row.fingerprint.prefix(16))</code></td><td>")
            text(Self.place(AuditReport.Sighting(origin: row.origin, column: row.column)))
            raw("</td><td>")
            text(row.foundIn)
            raw("</td><td class=\"verdict\">\(row.valid ? "valid" : "rejected")</td><td>")
            text(reason)
            raw("</td><td>")
            text(row.keyID ?? "")
            raw("</td><td>")
            text(row.audience?.joined(separator: ", ") ?? "")
            raw("</td><td data-sort=\"\(row.issuedAt.map { String(Int64(max(min($0, 9e15), -9e15))) } ?? "")\">")
            text(row.issuedAt.map { Timestamp.format($0) } ?? "")
            raw("</td></tr>\n")
        }
        raw("</tbody></table></div>\n")
        raw(
            """
            <script>
            (function () {
              var table = document.getElementById("tokens"), select = document.getElementById("reason-filter");
              var rows = Array.prototype.slice.call(table.tBodies[0].rows);
              function filter() {
                var want = select.value, shown = 0;
                rows.forEach(function (row) { var keep = !want || row.dataset.reason === want; row.hidden = !keep; if (keep) shown++; });
                table.dataset.shown = String(shown);
              }
              select.addEventListener("change", filter);
              table.tHead.addEventListener("click", function (event) {
                var column = Number(event.target.dataset.column); if (isNaN(column)) return;
                var down = table.dataset.sorted === String(column) && table.dataset.order !== "down";
                rows.sort(function (a, b) {
                  var x = a.cells[column].dataset.sort || a.cells[column].textContent, y = b.cells[column].dataset.sort || b.cells[column].textContent;
                  var order = x.localeCompare(y, undefined, { numeric: true }); return down ? -order : order;
                });
                rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
                table.dataset.sorted = String(column); table.dataset.order = down ? "down" : "up";
              });
              var match = /reason=([a-z_]+)/.exec(location.hash);
              if (match) { select.value = match[1]; }
              filter();
            })();
            </script>

            """)
        raw("</section>\n")
    }

    /// Occurrences over time by `iat`, valid and rejected stacked in each column, with the time
    /// span, the unit and the busiest column written out.
    mutating func timeline(_ timeline: (unit: String, buckets: [AuditReport.TimelineBucket]), withoutIssuedAt: Int) {
        raw(
            "<section class=\"card\" aria-labelledby=\"timeline\" style=\"margin-top:16px\"><h2 id=\"timeline\">Tokens over time (by iat, per \(timeline.unit))</h2>\n"
        )
        let buckets = timeline.buckets
        guard let first = buckets.first, let last = buckets.last else {
            raw("<p class=\"empty\">no token has a usable iat</p></section>\n")
            return
        }
        let seconds: Int64 = ["hour": 3600, "day": 86_400, "week": 604_800][timeline.unit] ?? 3600
        let columns = Int((last.start - first.start) / seconds) + 1
        let busiest = buckets.max { ($0.valid + $0.rejected, $1.start) < ($1.valid + $1.rejected, $0.start) }!
        let most = max(1, busiest.valid + busiest.rejected)
        let width = 1160.0 / Double(columns)
        raw("<svg viewBox=\"0 0 1200 210\" role=\"img\" aria-labelledby=\"timeline\">")
        raw(
            "<rect x=\"20\" y=\"8\" width=\"12\" height=\"12\" fill=\"var(--valid)\"/><text x=\"38\" y=\"19\">valid</text>"
        )
        raw(
            "<rect x=\"90\" y=\"8\" width=\"12\" height=\"12\" fill=\"var(--rejected)\"/><text x=\"108\" y=\"19\">rejected</text>"
        )
        raw("<text x=\"1180\" y=\"19\" text-anchor=\"end\">most in one \(timeline.unit): \(most)</text>")
        for bucket in buckets {
            let x = 20 + Double((bucket.start - first.start) / seconds) * width
            let validHeight = Double(bucket.valid) / Double(most) * 150
            let rejectedHeight = Double(bucket.rejected) / Double(most) * 150
            raw(
                "<g><title>\(Timestamp.format(Double(bucket.start))): \(bucket.valid) valid, \(bucket.rejected) rejected</title>"
            )
            raw(
                "<rect x=\"\(Self.fixed(x))\" y=\"\(Self.fixed(180 - validHeight))\" width=\"\(Self.fixed(max(width - 1, 0.6)))\" height=\"\(Self.fixed(validHeight))\" fill=\"var(--valid)\"/>"
            )
            raw(
                "<rect x=\"\(Self.fixed(x))\" y=\"\(Self.fixed(180 - validHeight - rejectedHeight))\" width=\"\(Self.fixed(max(width - 1, 0.6)))\" height=\"\(Self.fixed(rejectedHeight))\" fill=\"var(--rejected)\"/></g>"
            )
        }
        raw("<text x=\"20\" y=\"200\">\(Timestamp.format(Double(first.start)))</text>")
        raw(
            "<text x=\"1180\" y=\"200\" text-anchor=\"end\">\(Timestamp.format(Double(last.start + seconds)))</text></svg>\n"
        )
        raw(
            "<p class=\"note\">Busiest \(timeline.unit): \(Timestamp.format(Double(busiest.start))), \(busiest.valid) valid and \(busiest.rejected) rejected."
        )
        if withoutIssuedAt > 0 {
            raw(" \(withoutIssuedAt) occurrence\(withoutIssuedAt == 1 ? "" : "s") without a usable iat.")
        }
        raw("</p></section>\n")
    }

    /// Opens a titled card; an `empty` one says "none" and is closed at once (returns false).
    mutating func openCard(_ id: String, _ title: String, empty: Bool, spaced: Bool = false) -> Bool {
        raw(
            "<section class=\"card\" aria-labelledby=\"\(id)\"\(spaced ? " style=\"margin-top:16px\"" : "")><h2 id=\"\(id)\">"
        )
        text(title)
        raw("</h2>\n")
        if empty { raw("<p class=\"empty\">none</p></section>\n") }
        return !empty
    }

    /// A horizontal bar chart: each row's label, bar and count as text; the first 15 rows, the rest summed.
    mutating func chart(_ id: String, _ title: String, _ rows: [(String, Int)]) {
        guard openCard(id, title, empty: rows.isEmpty) else { return }
        var shown = Array(rows.prefix(15))
        if rows.count > 15 { shown.append(("(\(rows.count - 15) more)", rows.dropFirst(15).reduce(0) { $0 + $1.1 })) }
        let most = max(1, shown.map(\.1).max() ?? 1)
        let rowHeight = 22
        raw("<svg viewBox=\"0 0 600 \(shown.count * rowHeight + 6)\" role=\"img\" aria-labelledby=\"\(id)\">")
        for (index, row) in shown.enumerated() {
            let y = index * rowHeight + 4
            let label = row.0.count > 34 ? String(row.0.prefix(33)) + "…" : row.0
            let width = max(1.0, Double(row.1) / Double(most) * 290)
            raw("<g><title>")
            text("\(row.0): \(row.1)")
            raw("</title><text x=\"0\" y=\"\(y + 14)\">")
            text(label)
            raw(
                "</text><rect x=\"240\" y=\"\(y + 2)\" width=\"\(Self.fixed(width))\" height=\"16\" fill=\"var(--bar)\"/>"
            )
            raw("<text class=\"count\" x=\"\(Self.fixed(246 + width))\" y=\"\(y + 14)\">\(row.1)</text></g>")
        }
        raw("</svg>\n</section>\n")
    }

    /// A two-column table with a caption.
    mutating func table(_ id: String, _ title: String, _ rows: [(String, Int)], header: String) {
        guard openCard(id, title, empty: rows.isEmpty) else { return }
        raw("<div class=\"scroll\"><table><thead><tr><th scope=\"col\">")
        text(header)
        raw("</th><th scope=\"col\" class=\"n\">count</th></tr></thead><tbody>\n")
        for (name, count) in rows {
            raw("<tr><td>")
            text(name)
            raw("</td><td class=\"n\">\(count)</td></tr>\n")
        }
        raw("</tbody></table></div>\n</section>\n")
    }

    static func fixed(_ value: Double) -> String { "\(Double(Int((value * 10).rounded())) / 10)" }

    static func percent(_ part: Int, _ total: Int) -> String {
        "\(Double(Int((Double(part) / Double(total) * 1000).rounded())) / 10)%"
    }
}
