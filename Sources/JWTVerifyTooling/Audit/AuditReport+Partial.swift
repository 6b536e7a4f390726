package import JWTVerify

/// Partial reports: what `audit --format partial` writes for one part of the input, and their
/// merge (`audit merge`), which gives exactly the report one `audit` run over all the parts, in
/// the order given, would have printed.
///
/// A partial holds the report's counts, the first rows of the per-token table, and every
/// distinct token it tracked: its full fingerprint, its nonce's, how often it occurred, where it
/// was first and last seen and the ordinals of those occurrences. From these the merge finds the
/// tokens repeated across parts and the nonces shared by distinct tokens in different parts.
/// A partial is as bounded as a report: at most ``trackingLimit`` distinct tokens.
extension AuditReport {
    /// The format's version, in `"audit_partial"`.
    static let partialVersion = 1

    /// The partial report of the tokens added so far (``keepsDistinctTokens`` must have been set
    /// before the first).
    package func partialJSON() -> String {
        var text = OutputText()
        text.beginObject()
        text.key("audit_partial")
        text.integer(Self.partialVersion)
        conditions.appendJSON(to: &text)
        text.key("tokens")
        text.integer(tokens)
        text.key("valid")
        text.integer(valid)
        Self.appendCounts("by_reason", byReason, to: &text)
        Self.appendCounts("by_kid", byKeyID, to: &text)
        Self.appendCounts("by_issuer", byIssuer, to: &text)
        Self.appendCounts("by_audience", byAudience, to: &text)
        Self.appendCounts("lifetimes", lifetimes, to: &text)
        if !facets.isEmpty {
            text.key("app_store")
            text.beginObject()
            for (name, _) in ProviderRegistry.reportFacets { Self.appendCounts(name, facets[name] ?? [:], to: &text) }
            text.endObject()
        }
        Self.appendCounts("anomalies", anomalies, to: &text)
        Self.appendCounts("discarded", discarded, to: &text)
        appendDPoPJSON(to: &text, allSightings: true)
        text.key("hours")
        text.beginArray()
        for hour in issuedByHour.keys.sorted() {
            text.beginArray()
            text.integer(Int(hour))
            text.integer(issuedByHour[hour]!.valid)
            text.integer(issuedByHour[hour]!.rejected)
            text.endArray()
        }
        text.endArray()
        text.key("without_iat")
        text.integer(withoutIssuedAt)
        text.key("tracking_capped")
        text.bool(trackingCapped)
        text.key("repeats_tracked")
        text.bool(tracksRepeats)
        text.key("table_rows")
        text.beginArray()
        for row in tableRows { row.appendJSON(to: &text) }
        text.endArray()
        text.key("distinct")
        text.beginArray()
        for key in distinctOrder {
            guard let token = distinct[key], let count = seen[key], let first = firstPlaces[key] else { continue }
            text.beginObject()
            text.key("fingerprint")
            text.hexString(token.fingerprint)
            text.key("nonce_fingerprint")
            if let nonce = token.nonce { text.hexString(nonce) } else { text.null() }
            text.key("count")
            text.integer(count)
            text.key("first_occurrence")
            text.integer(token.firstOccurrence)
            text.key("last_occurrence")
            text.integer(token.lastOccurrence)
            text.key("first")
            sighting(first).appendJSON(to: &text)
            text.key("last")
            sighting(lastPlaces[key] ?? first).appendJSON(to: &text)
            text.endObject()
        }
        text.endArray()
        text.endObject()
        return text.string + "\n"
    }

    /// One distinct token of the merge: where its first and last occurrences stand in the whole
    /// input (the part's position, then the occurrence's ordinal in the part).
    private struct MergedToken {
        let fingerprint: String
        let nonce: (key: DigestKey, hex: String)?
        let firstOrder: (Int, Int)
        var lastOrder: (Int, Int)
        var last: Place
    }

    /// The report of `partials`, given in input order, merged: equal to the report of one run
    /// over the same input in the same order.
    package static func merging(_ partials: [JSONValue]) throws(ParseFailure) -> AuditReport {
        var report = AuditReport()
        report.keepsPlaces = true
        var merged: [DigestKey: MergedToken] = [:]
        var order: [DigestKey] = []
        var untracked = false
        var reductions: [AuditReduction.Key: [JSONValue]] = [:]
        for (part, value) in partials.enumerated() {
            if case .object(let members) = value, members["audit_reduced"] != nil {
                guard case .string(let by)? = members["by"], let key = AuditReduction.Key(rawValue: by) else {
                    throw ParseFailure(message: "part \(part + 1): a reduction by neither tokens nor nonces")
                }
                reductions[key, default: []].append(value)
                continue
            }
            guard case .object(let members) = value, case .integer(let version)? = members["audit_partial"],
                version == partialVersion
            else {
                throw ParseFailure(message: "part \(part + 1) is not a partial report (version \(partialVersion))")
            }
            func integer(_ name: String) throws(ParseFailure) -> Int {
                guard case .integer(let number)? = members[name] else {
                    throw ParseFailure(message: "part \(part + 1): \"\(name)\" is not an integer")
                }
                return Int(number)
            }
            guard case .bool(let capped)? = members["tracking_capped"] else {
                throw ParseFailure(message: "part \(part + 1): \"tracking_capped\" is not a Boolean")
            }
            let conditions = try AuditConditions(json: members)
            if part == 0 {
                report.conditions = conditions
            } else if conditions != report.conditions {
                throw ParseFailure(
                    message:
                        "part \(part + 1) was evaluated otherwise than part 1 (time, or nonce): give every part the same --now or --at"
                )
            }
            report.trackingCapped = report.trackingCapped || capped
            if case .bool(false)? = members["repeats_tracked"] { untracked = true }
            report.tokens += try integer("tokens")
            report.valid += try integer("valid")
            report.withoutIssuedAt += try integer("without_iat")
            func add(_ name: String, into counts: inout [String: Int]) throws(ParseFailure) {
                for (key, value) in try Self.counts(members, name) { counts[key, default: 0] += value }
            }
            try add("by_reason", into: &report.byReason)
            try add("by_kid", into: &report.byKeyID)
            try add("by_issuer", into: &report.byIssuer)
            try add("by_audience", into: &report.byAudience)
            try add("lifetimes", into: &report.lifetimes)
            for (name, counts) in try Self.facetCounts(members) {
                for (key, value) in counts { report.facets[name, default: [:]][key, default: 0] += value }
            }
            try add("anomalies", into: &report.anomalies)
            try add("discarded", into: &report.discarded)
            try report.addDPoP(members)
            guard case .array(let hours)? = members["hours"], case .array(let rows)? = members["table_rows"],
                case .array(let distinct)? = members["distinct"]
            else {
                throw ParseFailure(
                    message: "part \(part + 1): \"hours\", \"table_rows\" or \"distinct\" is not an array")
            }
            for hour in hours {
                guard case .array(let fields) = hour, fields.count == 3, case .integer(let start) = fields[0],
                    case .integer(let valid) = fields[1],
                    case .integer(let rejected) = fields[2]
                else { throw ParseFailure(message: "part \(part + 1): an hour is not [hour, valid, rejected]") }
                let sum = report.issuedByHour[start] ?? (0, 0)
                report.issuedByHour[start] = (sum.valid + Int(valid), sum.rejected + Int(rejected))
            }
            for value in rows {
                let row = try tableRow(value)
                if row.valid ? report.tableValid < tableLimit : report.tableRejected < tableLimit {
                    if row.valid { report.tableValid += 1 } else { report.tableRejected += 1 }
                    report.tableRows.append(row)
                }
            }
            for value in distinct {
                guard case .object(let fields) = value, case .string(let fingerprint)? = fields["fingerprint"],
                    let key = DigestKey(hex: fingerprint),
                    case .integer(let count)? = fields["count"],
                    case .integer(let firstOccurrence)? = fields["first_occurrence"],
                    case .integer(let lastOccurrence)? = fields["last_occurrence"]
                else {
                    throw ParseFailure(
                        message: "part \(part + 1): a distinct token lacks its fingerprint, count or occurrences")
                }
                var nonce: (key: DigestKey, hex: String)? = nil
                if case .string(let hex)? = fields["nonce_fingerprint"] {
                    guard let nonceKey = DigestKey(hex: hex) else {
                        throw ParseFailure(message: "part \(part + 1): a nonce fingerprint is not hex")
                    }
                    nonce = (nonceKey, hex)
                }
                let first = report.place(try sighting(fields["first"]))
                let last = report.place(try sighting(fields["last"]))
                if let known = report.seen[key] {
                    report.seen[key] = known + Int(count)
                    report.lastPlaces[key] = last
                    merged[key]?.lastOrder = (part, Int(lastOccurrence))
                    merged[key]?.last = last
                } else if report.seen.count < trackingLimit {
                    report.seen[key] = Int(count)
                    report.firstPlaces[key] = first
                    if count > 1 { report.lastPlaces[key] = last }
                    order.append(key)
                    merged[key] = MergedToken(
                        fingerprint: fingerprint, nonce: nonce, firstOrder: (part, Int(firstOccurrence)),
                        lastOrder: (part, Int(lastOccurrence)),
                        last: last)
                } else {
                    report.trackingCapped = true
                }
            }
        }
        report.tableOmitted = report.tokens - report.tableRows.count
        if untracked || !reductions.isEmpty {
            guard untracked, order.isEmpty, reductions.count == 2 else {
                throw ParseFailure(
                    message:
                        "partials that track no repeats go with both reductions ('audit reduce tokens' and 'nonces'), and only with them"
                )
            }
            try report.addReductions(tokens: reductions[.tokens]!, nonces: reductions[.nonces]!)
            return report
        }
        // Repeats: every occurrence of a tracked token after its first.
        for key in order {
            guard let count = report.seen[key], let token = merged[key] else { continue }
            report.repeatedOccurrences += count - 1
            if count > 1 {
                report.repeatedTokens += 1
                report.repeatedHex[key] = token.fingerprint
            }
        }
        // Nonces: owned by distinct tokens in the order of their first occurrence; first met at the
        // first of them, last met at the latest occurrence of any of them (once met again).
        var nonceOccurrences: [DigestKey: Int] = [:]
        var nonceLast: [DigestKey: (order: (Int, Int), place: Place)] = [:]
        for key in order {
            guard let token = merged[key], let nonce = token.nonce, let count = report.seen[key] else { continue }
            if let owners = report.nonceOwners[nonce.key] {
                report.nonceOwners[nonce.key] = owners + 1
                if owners == 1 {
                    report.sharedNonces += 1
                    report.tokensSharingNonces += 2
                    report.sharedNonceHex[nonce.key] = nonce.hex
                } else {
                    report.tokensSharingNonces += 1
                }
            } else if report.nonceOwners.count < trackingLimit {
                report.nonceOwners[nonce.key] = 1
                report.firstNoncePlaces[nonce.key] = report.firstPlaces[key]
            } else {
                report.trackingCapped = true
                continue
            }
            nonceOccurrences[nonce.key, default: 0] += count
            if let known = nonceLast[nonce.key], known.order >= token.lastOrder { continue }
            nonceLast[nonce.key] = (token.lastOrder, token.last)
        }
        for (nonce, occurrences) in nonceOccurrences where occurrences > 1 {
            if let last = nonceLast[nonce] { report.lastNoncePlaces[nonce] = last.place }
        }
        return report
    }

    /// Repeats and shared nonces from the reductions of the records (``AuditReduction``): their
    /// counts added, their lists' candidates ranked and cut to ``listLimit``, as one run ranks them.
    private mutating func addReductions(tokens: [JSONValue], nonces: [JSONValue]) throws(ParseFailure) {
        func reduce(_ parts: [JSONValue]) throws(ParseFailure) -> (
            repeated: Int, extra: Int, lines: Int, list: [Repeat]
        ) {
            var sums = (repeated: 0, extra: 0, lines: 0)
            var list: [Repeat] = []
            for part in parts {
                guard case .object(let members) = part, case .integer(let repeated)? = members["repeated_groups"],
                    case .integer(let extra)? = members["extra_lines"],
                    case .integer(let lines)? = members["lines_in_repeated_groups"],
                    case .array(let items)? = members["list"]
                else { throw ParseFailure(message: "a reduction lacks its counts or its list") }
                sums.repeated += Int(repeated)
                sums.extra += Int(extra)
                sums.lines += Int(lines)
                for item in items {
                    guard case .object(let fields) = item, case .string(let fingerprint)? = fields["fingerprint"],
                        case .integer(let count)? = fields["count"]
                    else { throw ParseFailure(message: "an entry of a reduction lacks its fingerprint or count") }
                    list.append(
                        Repeat(
                            fingerprint: fingerprint, count: Int(count), first: try Self.sighting(fields["first"]),
                            last: try Self.sighting(fields["last"])))
                }
            }
            let ranked = list.sorted { ($1.count, $0.fingerprint) < ($0.count, $1.fingerprint) }.prefix(Self.listLimit)
            return (sums.repeated, sums.extra, sums.lines, Array(ranked))
        }
        let repeats = try reduce(tokens)
        repeatedTokens = repeats.repeated
        repeatedOccurrences = repeats.extra
        savedRepeats = repeats.list
        let shared = try reduce(nonces)
        sharedNonces = shared.repeated
        tokensSharingNonces = shared.lines
        savedSharedNonces = shared.list
    }
}
