import JWTVerify

/// Everything `audit` reports about a set of tokens, accumulated in input order in bounded memory
/// (fingerprints and nonces are tracked up to ``trackingLimit`` distinct values).
package struct AuditReport {
    static let trackingLimit = 1_000_000

    package var tokens = 0
    package var valid = 0
    var byReason: [String: Int] = [:]
    var byKeyID: [String: Int] = [:]
    var byIssuer: [String: Int] = [:]
    var byAudience: [String: Int] = [:]
    var lifetimes: [String: Int] = [:]
    /// Verified tokens by their provider's facets (``ProviderRegistry/reportFacets``; App Store
    /// data's today): counts per value. Reports keep them under `app_store`.
    var facets: [String: [String: Int]] = [:]
    var anomalies: [String: Int] = [:]
    package var discarded: [String: Int] = [:]
    /// Occurrences of a token already seen, and how many distinct tokens were seen more than once.
    var repeatedOccurrences = 0
    var repeatedTokens = 0
    /// Distinct tokens carrying a nonce another distinct token also carries, and how many nonces.
    var sharedNonces = 0
    var tokensSharingNonces = 0
    var trackingCapped = false
    /// DPoP proofs found (not among ``tokens``).
    package var proofs = 0
    /// The proofs whose form and signature held.
    package var validProofs = 0
    /// Refused proofs by reason.
    var proofReasons: [String: Int] = [:]
    /// Tokens by ``AuditTokenKind`` (`token`, `access_token`).
    var byKind: [String: Int] = [:]
    /// Valid proofs by their replay key (key thumbprint and `jti`), in the order first met.
    var proofSightings: [DigestKey: ProofSighting] = [:]
    var proofOrder: [DigestKey] = []
    /// Access tokens bound to a key with no valid proof of it on their line: how many, and the
    /// first ``listLimit``.
    var unboundUses = 0
    var unboundList: [UnboundUse] = []
    /// When the tokens were evaluated and what was checked.
    package var conditions = AuditConditions()
    /// Occurrences by the hour their `iat` falls in (`floor(iat / 3600)`): valid and rejected.
    var issuedByHour: [Int64: (valid: Int, rejected: Int)] = [:]
    /// Occurrences without a usable `iat` (missing, or outside 0…10¹¹ s).
    var withoutIssuedAt = 0
    /// The first ``tableLimit`` rejected and the first ``tableLimit`` valid occurrences, in input
    /// order, for the report's per-token table; and how many were left out.
    var tableRows: [TableRow] = []
    var tableOmitted = 0
    var tableValid = 0
    var tableRejected = 0
    static let tableLimit = 1000
    /// Rejected occurrences listed by the table and Markdown reports (jsonl has every one).
    static let textRowLimit = 20

    /// The timeline as a saved report gave it (`audit render`), used as is.
    var savedTimeline: (unit: String, buckets: [TimelineBucket])? = nil

    var seen: [DigestKey: Int] = [:]
    var nonceOwners: [DigestKey: Int] = [:]
    /// Whether to keep where tokens and nonces were met (the report's lists; not for jsonl, whose
    /// report is only the summary line).
    package var keepsPlaces = true
    /// Where each tracked token and nonce was first met, and, once met again, last met.
    var firstPlaces: [DigestKey: Place] = [:]
    var lastPlaces: [DigestKey: Place] = [:]
    var firstNoncePlaces: [DigestKey: Place] = [:]
    var lastNoncePlaces: [DigestKey: Place] = [:]
    /// The file names places refer to by index.
    var fileNames: [String] = []
    var fileIndex: [String: Int32] = [:]
    /// The full fingerprints of tokens and nonces met more than once (for the lists).
    var repeatedHex: [DigestKey: String] = [:]
    var sharedNonceHex: [DigestKey: String] = [:]
    /// For a partial report (``keepsDistinctTokens``): every tracked token's full fingerprint,
    /// its nonce's, and the ordinals of its first and last occurrence.
    package var keepsDistinctTokens = false
    /// Whether this report finds repeats and shared nonces itself; `false` for the partials of a
    /// job that reduces them from the records where they are (``AuditReduction``): no distinct
    /// token is held, whatever the input.
    package var tracksRepeats = true
    var distinctOrder: [DigestKey] = []
    var distinct: [DigestKey: DistinctToken] = [:]

    /// What a partial report keeps of one distinct token.
    struct DistinctToken {
        let fingerprint: SHA256Digest
        let nonce: SHA256Digest?
        let firstOccurrence: Int
        var lastOccurrence: Int
    }

    /// The lists as a saved report gave them (`audit render`), used as is.
    var savedRepeats: [Repeat]? = nil
    var savedSharedNonces: [Repeat]? = nil
    static let listLimit = 100

    /// Where an occurrence was: its origin and column.
    struct Sighting {
        let origin: AuditOrigin
        let column: Int

        /// `file:line:column`, or `tag:column` for `--tagged-input`.
        var text: String {
            switch origin {
            case .line(let file, let number): "\(file):\(number):\(column)"
            case .tag(let tag): "\(tag ?? "?"):\(column)"
            }
        }

        func appendJSON(to text: inout OutputText) {
            text.beginObject()
            origin.appendJSON(to: &text)
            text.key("column")
            text.integer(column)
            text.endObject()
        }
    }

    /// A sighting as tracked: a file by index (or a tag), line and column.
    struct Place {
        let file: Int32
        let column: Int32
        let line: Int
        let tag: String?
    }

    mutating func place(_ sighting: Sighting) -> Place {
        switch sighting.origin {
        case .line(let file, let number):
            let index: Int32
            if let known = fileIndex[file] {
                index = known
            } else {
                index = Int32(fileNames.count)
                fileNames.append(file)
                fileIndex[file] = index
            }
            return Place(file: index, column: Int32(clamping: sighting.column), line: number, tag: nil)
        case .tag(let tag):
            return Place(file: -1, column: Int32(clamping: sighting.column), line: 0, tag: tag)
        }
    }

    func sighting(_ place: Place) -> Sighting {
        Sighting(
            origin: place.file >= 0 ? .line(file: fileNames[Int(place.file)], number: place.line) : .tag(place.tag),
            column: Int(place.column))
    }

    /// A token seen more than once, or a nonce shared by distinct tokens, for the report's lists.
    struct Repeat {
        let fingerprint: String
        let count: Int
        let first: Sighting
        let last: Sighting
    }

    static let lifetimeBuckets = ["<= 10 min", "<= 1 h", "<= 24 h", "> 24 h", "unknown"]

    package mutating func add(_ record: AuditRecord) {
        tokens += 1
        addKind(record)
        var firstSighting = true
        let tokenKey = DigestKey(record.fingerprint)
        let here: Place? =
            keepsPlaces && tracksRepeats ? place(Sighting(origin: record.origin, column: record.column)) : nil
        if !tracksRepeats {
            // Counted where the records are reduced.
        } else if let count = seen[tokenKey] {
            firstSighting = false
            repeatedOccurrences += 1
            if count == 1 {
                repeatedTokens += 1
                if keepsPlaces { repeatedHex[tokenKey] = record.fingerprint.hex }
            }
            seen[tokenKey] = count + 1
            if let here { lastPlaces[tokenKey] = here }
            if keepsDistinctTokens { distinct[tokenKey]?.lastOccurrence = tokens }
        } else if seen.count < Self.trackingLimit {
            seen[tokenKey] = 1
            if let here { firstPlaces[tokenKey] = here }
            if keepsDistinctTokens {
                distinctOrder.append(tokenKey)
                distinct[tokenKey] = DistinctToken(
                    fingerprint: record.fingerprint, nonce: record.nonceDigest, firstOccurrence: tokens,
                    lastOccurrence: tokens)
            }
        } else {
            trackingCapped = true
        }
        let verified: Bool
        switch record.outcome.result {
        case .success:
            valid += 1
            verified = true
        case .failure(let error):
            byReason[error.reason.rawValue, default: 0] += 1
            verified = false
        }
        let (issuedAt, issuer, audience) = record.outcome.withClaims { ($0.issuedAt, $0.issuer, $0.audience) }
        if let iat = issuedAt, iat >= 0, iat < 1e11 {
            let hour = Int64((iat / 3600).rounded(.down))
            var counts = issuedByHour[hour] ?? (0, 0)
            if verified { counts.valid += 1 } else { counts.rejected += 1 }
            issuedByHour[hour] = counts
        } else {
            withoutIssuedAt += 1
        }
        if case .success(let token) = record.outcome.result {
            for (name, value) in token.provider.facets { facets[name, default: [:]][value, default: 0] += 1 }
        }
        byKeyID[record.outcome.keyID ?? "(none)", default: 0] += 1
        byIssuer[issuer ?? "(none)", default: 0] += 1
        for audience in audience ?? ["(none)"] { byAudience[audience, default: 0] += 1 }
        let bucket: String
        switch record.lifetime {
        case nil: bucket = "unknown"
        case let seconds? where seconds <= 600: bucket = "<= 10 min"
        case let seconds? where seconds <= 3600: bucket = "<= 1 h"
        case let seconds? where seconds <= 86_400: bucket = "<= 24 h"
        default: bucket = "> 24 h"
        }
        lifetimes[bucket, default: 0] += 1
        if tracksRepeats, let nonceDigest = record.nonceDigest {
            let nonceKey = DigestKey(nonceDigest)
            if let count = nonceOwners[nonceKey] {
                if let here { lastNoncePlaces[nonceKey] = here }
                if firstSighting {
                    nonceOwners[nonceKey] = count + 1
                    if count == 1 {
                        sharedNonces += 1
                        tokensSharingNonces += 2
                        if keepsPlaces { sharedNonceHex[nonceKey] = nonceDigest.hex }
                    } else {
                        tokensSharingNonces += 1
                    }
                }
            } else if firstSighting && nonceOwners.count < Self.trackingLimit {
                nonceOwners[nonceKey] = 1
                if let here { firstNoncePlaces[nonceKey] = here }
            } else if firstSighting {
                trackingCapped = true
            }
        }
        for anomaly in record.anomalies { anomalies[anomaly.rawValue, default: 0] += 1 }
        if keepsPlaces, verified ? tableValid < Self.tableLimit : tableRejected < Self.tableLimit {
            if verified { tableValid += 1 } else { tableRejected += 1 }
            tableRows.append(
                TableRow(
                    fingerprint: record.fingerprint.hex, origin: record.origin, column: record.column,
                    foundIn: record.place.description,
                    valid: verified,
                    reason: record.outcome.error?.reason.rawValue, keyID: record.outcome.keyID, audience: audience,
                    issuedAt: issuedAt))
        } else {
            tableOmitted += 1
        }
    }

    /// Counts tokens whose records were written elsewhere (`--format jsonl` keeps no aggregates).
    package mutating func count(tokens: Int, valid: Int) {
        self.tokens += tokens
        self.valid += valid
    }

    package mutating func discard(_ reason: TokenExtractor.Discard) { discarded[reason.rawValue, default: 0] += 1 }

    /// One occurrence in the per-token table: no token, only its fingerprint.
    struct TableRow {
        let fingerprint: String
        let origin: AuditOrigin
        let column: Int
        /// The record's `found_in`.
        let foundIn: String
        let valid: Bool
        let reason: String?
        let keyID: String?
        let audience: [String]?
        let issuedAt: Double?

        func appendJSON(to text: inout OutputText) {
            text.beginObject()
            text.member("fingerprint", fingerprint)
            origin.appendJSON(to: &text)
            text.key("column")
            text.integer(column)
            text.member("found_in", foundIn)
            text.key("valid")
            text.bool(valid)
            text.member("reason", reason)
            text.member("kid", keyID)
            text.key("aud")
            if let audience {
                text.beginArray()
                for value in audience { text.string(value) }
                text.endArray()
            } else {
                text.null()
            }
            text.member("iat", issuedAt)
            text.endObject()
        }
    }

    /// The tokens seen most often (more than once), then by fingerprint; at most ``listLimit``.
    var repeats: [Repeat] {
        if let savedRepeats { return savedRepeats }
        return list(repeatedHex, counts: seen, first: firstPlaces, last: lastPlaces)
    }

    /// The nonces most shared by distinct tokens, then by nonce fingerprint; at most ``listLimit``.
    var sharedNonceList: [Repeat] {
        if let savedSharedNonces { return savedSharedNonces }
        return list(sharedNonceHex, counts: nonceOwners, first: firstNoncePlaces, last: lastNoncePlaces)
    }

    func list(
        _ hex: [DigestKey: String], counts: [DigestKey: Int], first: [DigestKey: Place], last: [DigestKey: Place]
    ) -> [Repeat] {
        hex.compactMap { key, fingerprint -> Repeat? in
            guard let count = counts[key], let firstPlace = first[key] else { return nil }
            return Repeat(
                fingerprint: fingerprint, count: count, first: sighting(firstPlace),
                last: sighting(last[key] ?? firstPlace))
        }
        .sorted { ($1.count, $0.fingerprint) < ($0.count, $1.fingerprint) }
        .prefix(Self.listLimit).map { $0 }
    }

    /// One column of the timeline: occurrences whose `iat` falls in [start, start + unit).
    struct TimelineBucket {
        let start: Int64
        let valid: Int
        let rejected: Int
    }

    /// The timeline in hours when it spans at most 14 days, else in days when at most 400 days,
    /// else in weeks (counted from the epoch): the same rule the Spark job applies.
    var timeline: (unit: String, buckets: [TimelineBucket]) {
        if let savedTimeline { return savedTimeline }
        guard let first = issuedByHour.keys.min(), let last = issuedByHour.keys.max() else { return ("hour", []) }
        let (unit, hours): (String, Int64) =
            last - first <= 14 * 24 ? ("hour", 1) : last - first <= 400 * 24 ? ("day", 24) : ("week", 168)
        var merged: [Int64: (valid: Int, rejected: Int)] = [:]
        for (hour, counts) in issuedByHour {
            let start = (hour / hours) * hours * 3600
            let sum = merged[start] ?? (0, 0)
            merged[start] = (sum.valid + counts.valid, sum.rejected + counts.rejected)
        }
        return (
            unit,
            merged.keys.sorted().map {
                TimelineBucket(start: $0, valid: merged[$0]!.valid, rejected: merged[$0]!.rejected)
            }
        )
    }

    /// The repeat counts, as the reports list them (nonces only where tokens carry them).
    var repeatRows: [(String, Int)] {
        [("tokens seen more than once", repeatedTokens), ("extra occurrences", repeatedOccurrences)]
            + (conditions.keysFromTokens
                ? []
                : [
                    ("nonces shared by distinct tokens (possible replay)", sharedNonces),
                    ("distinct tokens sharing a nonce", tokensSharingNonces),
                ])
    }

    /// What the anomalies panel adds from the findings, so it never says "none" while something
    /// calls for action: shared nonces, replayed tokens, rejections, and the DPoP findings.
    var findingRows: [String: Int] {
        var rows: [String: Int] = [:]
        if sharedNonces > 0 { rows["nonces shared by distinct tokens (possible replay)"] = sharedNonces }
        if repeatedTokens > 0 { rows["tokens seen more than once"] = repeatedTokens }
        if tokens > valid { rows["rejected occurrences"] = tokens - valid }
        let replayedProofs = replayedProofs.count
        if replayedProofs > 0 { rows["DPoP proofs replayed (a jti of one key seen more than once)"] = replayedProofs }
        if unboundUses > 0 {
            rows["access tokens bound to a key without a valid proof of it on their line"] = unboundUses
        }
        if proofs > validProofs { rows["rejected DPoP proofs"] = proofs - validProofs }
        return rows
    }

    /// An empty report.
    package init() {}

    /// Sorted by count, then name.
    static func ranked(_ counts: [String: Int]) -> [(String, Int)] {
        counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    }

}
