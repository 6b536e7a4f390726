package import JWTVerify

/// `--format json`, and a saved report read back (`audit render`, the Spark job's report).
extension AuditReport {
    /// Why a saved report could not be read.
    package struct ParseFailure: Error {
        package let message: String
    }

    /// The report `json()` printed: every count back, so rendering it again gives the same text.
    package init(json value: JSONValue) throws(ParseFailure) {
        guard case .object(let members) = value else { throw ParseFailure(message: "not a JSON object") }
        func integer(_ name: String) throws(ParseFailure) -> Int {
            guard case .integer(let number)? = members[name] else {
                throw ParseFailure(message: "\"\(name)\" is not an integer")
            }
            return Int(number)
        }
        func counts(_ name: String) throws(ParseFailure) -> [String: Int] { try Self.counts(members, name) }
        tokens = try integer("tokens")
        valid = try integer("valid")
        guard try integer("rejected") == tokens - valid else {
            throw ParseFailure(message: "\"rejected\" is not tokens - valid")
        }
        conditions = try AuditConditions(json: members)
        guard case .object(let timeline)? = members["timeline"], case .string(let unit)? = timeline["unit"],
            case .array(let buckets)? = timeline["buckets"], case .integer(let without)? = timeline["without_iat"],
            let hours: Int64 = ["hour": 1, "day": 24, "week": 168][unit]
        else { throw ParseFailure(message: "\"timeline\" is not {\"unit\", \"buckets\", \"without_iat\"}") }
        var parsed: [TimelineBucket] = []
        for bucket in buckets {
            guard case .array(let fields) = bucket, fields.count == 3, case .integer(let start) = fields[0],
                case .integer(let valid) = fields[1],
                case .integer(let rejected) = fields[2], start % (hours * 3600) == 0,
                parsed.last.map({ $0.start < start }) ?? true
            else { throw ParseFailure(message: "a timeline bucket is not [start, valid, rejected] in order") }
            parsed.append(TimelineBucket(start: start, valid: Int(valid), rejected: Int(rejected)))
        }
        savedTimeline = (unit, parsed)
        withoutIssuedAt = Int(without)
        byReason = try counts("by_reason")
        byKeyID = try counts("by_kid")
        byIssuer = try counts("by_issuer")
        byAudience = try counts("by_audience")
        lifetimes = try counts("lifetimes")
        facets = try Self.facetCounts(members)
        repeatedTokens = try integer("repeated_tokens")
        repeatedOccurrences = try integer("repeated_occurrences")
        sharedNonces = try integer("shared_nonces")
        tokensSharingNonces = try integer("tokens_sharing_nonces")
        anomalies = try counts("anomalies")
        discarded = try counts("discarded")
        try addDPoP(members)
        func sighting(_ value: JSONValue?) throws(ParseFailure) -> Sighting { try Self.sighting(value) }
        func list(_ name: String, _ countName: String, _ fingerprintName: String) throws(ParseFailure) -> [Repeat] {
            guard case .array(let items)? = members[name] else {
                throw ParseFailure(message: "\"\(name)\" is not an array")
            }
            var result: [Repeat] = []
            for item in items {
                guard case .object(let fields) = item, case .string(let fingerprint)? = fields[fingerprintName],
                    case .integer(let count)? = fields[countName]
                else { throw ParseFailure(message: "an entry of \"\(name)\" lacks \(fingerprintName) or \(countName)") }
                result.append(
                    Repeat(
                        fingerprint: fingerprint, count: Int(count), first: try sighting(fields["first"]),
                        last: try sighting(fields["last"])))
            }
            return result
        }
        savedRepeats = try list("repeats", "occurrences", "fingerprint")
        savedSharedNonces = try list("shared_nonce_list", "tokens", "nonce_fingerprint")
        guard case .object(let table)? = members["tokens_table"], case .array(let rows)? = table["rows"],
            case .integer(let omitted)? = table["omitted"]
        else { throw ParseFailure(message: "\"tokens_table\" is not {\"rows\", \"omitted\"}") }
        tableOmitted = Int(omitted)
        for row in rows { tableRows.append(try Self.tableRow(row)) }
        guard case .bool(let capped)? = members["tracking_capped"] else {
            throw ParseFailure(message: "\"tracking_capped\" is not a Boolean")
        }
        trackingCapped = capped
    }

    /// `--format json`.
    package func json() -> String {
        var text = OutputText()
        text.beginObject()
        func counts(_ name: String, _ values: [String: Int]) { Self.appendCounts(name, values, to: &text) }
        // The findings first: what an auditor acts on (recomputed from the rest when read back).
        text.key("findings")
        text.beginArray()
        for finding in findings { finding.appendJSON(to: &text) }
        text.endArray()
        text.key("tokens")
        text.integer(tokens)
        text.key("valid")
        text.integer(valid)
        text.key("rejected")
        text.integer(tokens - valid)
        appendDPoPJSON(to: &text, allSightings: false)
        conditions.appendJSON(to: &text)
        let timeline = self.timeline
        text.key("timeline")
        text.beginObject()
        text.member("unit", timeline.unit)
        text.key("buckets")
        text.beginArray()
        for bucket in timeline.buckets {
            text.beginArray()
            text.integer(Int(bucket.start))
            text.integer(bucket.valid)
            text.integer(bucket.rejected)
            text.endArray()
        }
        text.endArray()
        text.key("without_iat")
        text.integer(withoutIssuedAt)
        text.endObject()
        counts("by_reason", byReason)
        counts("by_kid", byKeyID)
        counts("by_issuer", byIssuer)
        counts("by_audience", byAudience)
        counts("lifetimes", lifetimes)
        if !facets.isEmpty {
            text.key("app_store")
            text.beginObject()
            for (name, _) in ProviderRegistry.reportFacets { counts(name, facets[name] ?? [:]) }
            text.endObject()
        }
        text.key("repeated_tokens")
        text.integer(repeatedTokens)
        text.key("repeated_occurrences")
        text.integer(repeatedOccurrences)
        text.key("shared_nonces")
        text.integer(sharedNonces)
        text.key("tokens_sharing_nonces")
        text.integer(tokensSharingNonces)
        func list(_ name: StaticString, _ countName: StaticString, _ fingerprintName: StaticString, _ items: [Repeat]) {
            text.key(name)
            text.beginArray()
            for item in items {
                text.beginObject()
                text.member(fingerprintName, item.fingerprint)
                text.key(countName)
                text.integer(item.count)
                text.key("first")
                item.first.appendJSON(to: &text)
                text.key("last")
                item.last.appendJSON(to: &text)
                text.endObject()
            }
            text.endArray()
        }
        list("repeats", "occurrences", "fingerprint", repeats)
        list("shared_nonce_list", "tokens", "nonce_fingerprint", sharedNonceList)
        counts("anomalies", anomalies)
        counts("discarded", discarded)
        text.key("tokens_table")
        text.beginObject()
        text.key("rows")
        text.beginArray()
        for row in tableRows { row.appendJSON(to: &text) }
        text.endArray()
        text.key("omitted")
        text.integer(tableOmitted)
        text.endObject()
        text.key("tracking_capped")
        text.bool(trackingCapped)
        text.endObject()
        return text.string + "\n"
    }

    /// `"name"`: an object of integer counts.
    static func counts(_ members: [String: JSONValue], _ name: String) throws(ParseFailure) -> [String: Int] {
        guard case .object(let entries)? = members[name] else {
            throw ParseFailure(message: "\"\(name)\" is not an object")
        }
        var result: [String: Int] = [:]
        for (key, value) in entries {
            guard case .integer(let number) = value else {
                throw ParseFailure(message: "\"\(name)\".\"\(key)\" is not an integer")
            }
            result[key] = Int(number)
        }
        return result
    }

    /// `"app_store"`: the providers' facet counts (App Store data's); absent when no such token was verified.
    static func facetCounts(_ members: [String: JSONValue]) throws(ParseFailure) -> [String: [String: Int]] {
        guard let value = members["app_store"] else { return [:] }
        guard case .object(let facets) = value else { throw ParseFailure(message: "\"app_store\" is not an object") }
        var result: [String: [String: Int]] = [:]
        for (name, _) in ProviderRegistry.reportFacets where facets[name] != nil {
            let counts = try counts(facets, name)
            if !counts.isEmpty { result[name] = counts }
        }
        return result
    }

    /// A sighting as ``Sighting/appendJSON(to:)`` writes it.
    static func sighting(_ value: JSONValue?) throws(ParseFailure) -> Sighting {
        guard case .object(let fields)? = value, case .integer(let column)? = fields["column"] else {
            throw ParseFailure(message: "a sighting is not {file, line, column} or {tag, column}")
        }
        if case .string(let file)? = fields["file"], case .integer(let line)? = fields["line"] {
            return Sighting(origin: .line(file: file, number: Int(line)), column: Int(column))
        }
        return Sighting(origin: .tag(fields["tag"]?.stringValue), column: Int(column))
    }

    /// A row of the per-token table as ``TableRow/appendJSON(to:)`` writes it.
    static func tableRow(_ row: JSONValue) throws(ParseFailure) -> TableRow {
        guard case .object(let fields) = row, case .string(let fingerprint)? = fields["fingerprint"],
            case .integer(let column)? = fields["column"], case .bool(let valid)? = fields["valid"]
        else { throw ParseFailure(message: "a tokens_table row lacks fingerprint, column or valid") }
        let origin: AuditOrigin
        if case .string(let file)? = fields["file"], case .integer(let line)? = fields["line"] {
            origin = .line(file: file, number: Int(line))
        } else {
            origin = .tag(fields["tag"]?.stringValue)
        }
        var audience: [String]? = nil
        if case .array(let values)? = fields["aud"] { audience = values.compactMap(\.stringValue) }
        return TableRow(
            fingerprint: fingerprint, origin: origin, column: Int(column),
            foundIn: fields["found_in"]?.stringValue ?? "text",
            valid: valid, reason: fields["reason"]?.stringValue, keyID: fields["kid"]?.stringValue, audience: audience,
            issuedAt: fields["iat"]?.doubleValue)
    }

    /// Writes `"name": {key: count, ...}`, most first, then by name.
    static func appendCounts(_ name: String, _ values: [String: Int], to text: inout OutputText) {
        text.key(name)
        text.beginObject()
        for (key, value) in ranked(values) {
            text.key(key)
            text.integer(value)
        }
        text.endObject()
    }
}
