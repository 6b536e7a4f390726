import JWTVerify
import JWTVerifyTooling

/// Where `audit` found something: a file and line, or the tag of a `--tagged-input` line.
enum AuditOrigin: Sendable {
    case line(file: String, number: Int)
    /// `nil`: a tagged line too long to read its tag.
    case tag(String?)

    /// Appends `"file": …, "line": …` or `"tag": …`.
    func appendJSON(to text: inout OutputText) {
        switch self {
        case .line(let file, let number):
            text.member("file", file)
            text.key("line")
            text.integer(number)
        case .tag(let tag):
            text.member("tag", tag)
        }
    }

    /// The cells of ``columns(tagged:)``, each after its tab.
    func appendCells(to text: inout OutputText) {
        text.cellSeparator()
        switch self {
        case .line(let file, let number):
            text.stringCell(file)
            text.cellSeparator()
            text.integerCell(number)
        case .tag(let tag):
            text.stringCell(tag)
        }
    }

    /// The TSV columns of an origin: `file` and `line`, or `tag` for `--tagged-input`.
    static func columns(tagged: Bool) -> [String] { tagged ? ["tag"] : ["file", "line"] }
}

/// A token-like fragment `audit` did not take, and where it was (`--discards`).
struct AuditDiscard: Sendable {
    let reason: TokenExtractor.Discard
    let origin: AuditOrigin

    /// Appends the JSON Lines record: `{"discarded": REASON, "file": …, "line": …}` or with `"tag"`.
    func appendJSON(to text: inout OutputText) {
        text.beginObject()
        text.member("discarded", reason.rawValue)
        origin.appendJSON(to: &text)
        text.endObject()
        text.newline()
    }

    /// Appends the TSV row: the reason and where, every other column empty.
    func appendCells(to text: inout OutputText, columns: Int) {
        text.stringCell(reason.rawValue)
        origin.appendCells(to: &text)
        let originColumns: Int = if case .tag = origin { 1 } else { 2 }
        for _ in (1 + originColumns)..<columns { text.cellSeparator() }
        text.newline()
    }
}

/// One token found by `audit`, evaluated.
struct AuditRecord: Sendable {
    let origin: AuditOrigin
    let column: Int
    /// What the text before the token says it was (`found_in`: `bearer`, `json:KEY`, …).
    let place: TokenExtractor.Place
    /// The token itself, kept only when its record is to show it (`--show-tokens`).
    let token: [UInt8]?
    let fingerprint: SHA256Digest
    /// The verdict and what the verifier read on the way (verified claims for a valid token).
    let outcome: VerificationOutcome
    let keySource: String?
    /// SHA-256 of the `nonce` claim's UTF-8, when there is one.
    let nonceDigest: SHA256Digest?
    /// What is worth a look about the token, in a fixed order.
    let anomalies: [AuditAnomaly]
    /// `exp - iat`, when both are there.
    let lifetime: Double?

    init(
        origin: AuditOrigin, column: Int, place: TokenExtractor.Place, token: UnsafeRawBufferPointer, keepingToken: Bool,
        outcome: VerificationOutcome, keySource: String?, allowList: Set<SignatureAlgorithm>
    ) {
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
            let nonceDigest = claims.nonce.map { nonce in
                var nonce = nonce
                return nonce.withUTF8 { SHA256Digest(hashing: UnsafeRawBufferPointer($0)) }
            }
            return (nonceDigest, lifetime, Self.anomalies(outcome, claims, allowList: allowList))
        }
        self.outcome = outcome
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
            if !alg.isEmpty, !isNone, !alg.hasPrefix("HS"), SignatureAlgorithm(name: alg).map({ !allowList.contains($0) }) ?? true {
                found.append(.algOutsideAllowList)
            }
        }
        if outcome.error?.reason == .unknownKeyID { found.append(.unknownKeyID) }
        if claims.nonce == nil { found.append(.noNonce) }
        if let iat = claims.issuedAt, let at = outcome.evaluatedAt, iat > at { found.append(.issuedAfterEvaluation) }
        if let exp = claims.expiresAt, let iat = claims.issuedAt, exp - iat > 86_400 { found.append(.lifetimeOver24Hours) }
        if outcome.emailVerified == false { found.append(.emailNotVerified) }
        return found
    }

    /// Appends the JSON Lines record (`--format jsonl`): where it was found, the fields every
    /// record shares, then the audit's own, and the token when the record kept it.
    func appendJSON(to text: inout OutputText, rules: ProviderRules) {
        text.beginObject()
        origin.appendJSON(to: &text)
        text.key("column")
        text.integer(column)
        text.key("found_in")
        text.string(place.description)
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
    static func columns(tagged: Bool, showTokens: Bool) -> [String] {
        ["discarded"] + AuditOrigin.columns(tagged: tagged) + ["column", "found_in"] + TokenRecordWriter.columns
            + ["key_source", "lifetime", "evaluated_at", "fingerprint", "nonce_fingerprint", "anomalies"]
            + (showTokens ? ["token"] : [])
    }

    /// Appends the TSV row (`--format tsv`): the cells of ``columns(tagged:showTokens:)``.
    func appendCells(to text: inout OutputText) {
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

/// Something about a token worth a look; the raw value is the report's wording and the record's.
enum AuditAnomaly: String, Sendable {
    case algNone = "alg none"
    case hmac = "HMAC (HS*) alg"
    case algOutsideAllowList = "alg outside the allow-list"
    case unknownKeyID = "unknown kid"
    case noNonce = "no nonce claim"
    case issuedAfterEvaluation = "iat after the evaluation time"
    case lifetimeOver24Hours = "lifetime over 24 h"
    case emailNotVerified = "email_verified false"
}

/// The first 128 bits of a SHA-256: what repeat tracking keeps instead of tokens or nonces.
struct DigestKey: Hashable {
    let high: UInt64
    let low: UInt64
    init(_ digest: SHA256Digest) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        digest.withUnsafeBytes { digest in
            for i in 0..<8 { high = high << 8 | UInt64(digest[i]) }
            for i in 8..<16 { low = low << 8 | UInt64(digest[i]) }
        }
        self.high = high
        self.low = low
    }
}

/// Everything `audit` reports about a set of tokens, accumulated in input order in bounded memory
/// (fingerprints and nonces are tracked up to ``trackingLimit`` distinct values).
struct AuditReport {
    static let trackingLimit = 1_000_000

    var tokens = 0
    var valid = 0
    var byReason: [String: Int] = [:]
    var byKeyID: [String: Int] = [:]
    var byIssuer: [String: Int] = [:]
    var byAudience: [String: Int] = [:]
    var lifetimes: [String: Int] = [:]
    var anomalies: [String: Int] = [:]
    var discarded: [String: Int] = [:]
    /// Occurrences of a token already seen, and how many distinct tokens were seen more than once.
    var repeatedOccurrences = 0
    var repeatedTokens = 0
    /// Distinct tokens carrying a nonce another distinct token also carries, and how many nonces.
    var sharedNonces = 0
    var tokensSharingNonces = 0
    var trackingCapped = false
    /// When tokens were evaluated: a fixed time (`--now`, or the start of the run), or each at its
    /// own `iat` (`nil`).
    var evaluatedAt: Double? = nil
    /// Whether a raw nonce was checked (`--nonce`). Captured tokens come without the raw nonces
    /// their sign-ins started with, so an audit checks none unless told one; nonce anomalies
    /// (no nonce claim, nonces shared by distinct tokens) are reported either way.
    var nonceChecked = false
    /// Occurrences by the hour their `iat` falls in (`floor(iat / 3600)`): valid and rejected.
    var issuedByHour: [Int64: (valid: Int, rejected: Int)] = [:]
    /// Occurrences without a usable `iat` (missing, or outside 0…10¹¹ s).
    var withoutIssuedAt = 0
    /// The first ``tableLimit`` rejected and the first ``tableLimit`` valid occurrences, in input
    /// order, for the report's per-token table; and how many were left out.
    var tableRows: [TableRow] = []
    var tableOmitted = 0
    private var tableValid = 0
    private var tableRejected = 0
    static let tableLimit = 1000
    /// Rejected occurrences listed by the table and Markdown reports (jsonl has every one).
    static let textRowLimit = 20

    /// The timeline as a saved report gave it (`audit render`), used as is.
    private var savedTimeline: (unit: String, buckets: [TimelineBucket])? = nil

    private var seen: [DigestKey: Int] = [:]
    private var nonceOwners: [DigestKey: Int] = [:]
    /// Whether to keep where tokens and nonces were met (the report's lists; not for jsonl, whose
    /// report is only the summary line).
    var keepsPlaces = true
    /// Where each tracked token and nonce was first met, and, once met again, last met.
    private var firstPlaces: [DigestKey: Place] = [:]
    private var lastPlaces: [DigestKey: Place] = [:]
    private var firstNoncePlaces: [DigestKey: Place] = [:]
    private var lastNoncePlaces: [DigestKey: Place] = [:]
    /// The file names places refer to by index.
    private var fileNames: [String] = []
    private var fileIndex: [String: Int32] = [:]
    /// The full fingerprints of tokens and nonces met more than once (for the lists).
    private var repeatedHex: [DigestKey: String] = [:]
    private var sharedNonceHex: [DigestKey: String] = [:]
    /// The lists as a saved report gave them (`audit render`), used as is.
    private var savedRepeats: [Repeat]? = nil
    private var savedSharedNonces: [Repeat]? = nil
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
    private struct Place {
        let file: Int32
        let column: Int32
        let line: Int
        let tag: String?
    }

    private mutating func place(_ sighting: Sighting) -> Place {
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

    private func sighting(_ place: Place) -> Sighting {
        Sighting(
            origin: place.file >= 0 ? .line(file: fileNames[Int(place.file)], number: place.line) : .tag(place.tag), column: Int(place.column))
    }

    /// A token seen more than once, or a nonce shared by distinct tokens, for the report's lists.
    struct Repeat {
        let fingerprint: String
        let count: Int
        let first: Sighting
        let last: Sighting
    }

    static let lifetimeBuckets = ["<= 10 min", "<= 1 h", "<= 24 h", "> 24 h", "unknown"]

    mutating func add(_ record: AuditRecord) {
        tokens += 1
        var firstSighting = true
        let tokenKey = DigestKey(record.fingerprint)
        let here: Place? = keepsPlaces ? place(Sighting(origin: record.origin, column: record.column)) : nil
        if let count = seen[tokenKey] {
            firstSighting = false
            repeatedOccurrences += 1
            if count == 1 {
                repeatedTokens += 1
                if keepsPlaces { repeatedHex[tokenKey] = record.fingerprint.hex }
            }
            seen[tokenKey] = count + 1
            if let here { lastPlaces[tokenKey] = here }
        } else if seen.count < Self.trackingLimit {
            seen[tokenKey] = 1
            if let here { firstPlaces[tokenKey] = here }
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
        if let nonceDigest = record.nonceDigest {
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
                    fingerprint: record.fingerprint.hex, origin: record.origin, column: record.column, foundIn: record.place.description,
                    valid: verified,
                    reason: record.outcome.error?.reason.rawValue, keyID: record.outcome.keyID, audience: audience,
                    issuedAt: issuedAt))
        } else {
            tableOmitted += 1
        }
    }

    /// Counts tokens whose records were written elsewhere (`--format jsonl` keeps no aggregates).
    mutating func count(tokens: Int, valid: Int) {
        self.tokens += tokens
        self.valid += valid
    }

    mutating func discard(_ reason: TokenExtractor.Discard) { discarded[reason.rawValue, default: 0] += 1 }


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

    private func list(
        _ hex: [DigestKey: String], counts: [DigestKey: Int], first: [DigestKey: Place], last: [DigestKey: Place]
    ) -> [Repeat] {
        hex.compactMap { key, fingerprint -> Repeat? in
            guard let count = counts[key], let firstPlace = first[key] else { return nil }
            return Repeat(fingerprint: fingerprint, count: count, first: sighting(firstPlace), last: sighting(last[key] ?? firstPlace))
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
        let (unit, hours): (String, Int64) = last - first <= 14 * 24 ? ("hour", 1) : last - first <= 400 * 24 ? ("day", 24) : ("week", 168)
        var merged: [Int64: (valid: Int, rejected: Int)] = [:]
        for (hour, counts) in issuedByHour {
            let start = (hour / hours) * hours * 3600
            let sum = merged[start] ?? (0, 0)
            merged[start] = (sum.valid + counts.valid, sum.rejected + counts.rejected)
        }
        return (unit, merged.keys.sorted().map { TimelineBucket(start: $0, valid: merged[$0]!.valid, rejected: merged[$0]!.rejected) })
    }

    /// Why a JSON document is not a report.
    struct ParseFailure: Error {
        let message: String
    }

    /// The report `json()` printed: every count back, so rendering it again gives the same text.
    init(json value: JSONValue) throws(ParseFailure) {
        guard case .object(let members) = value else { throw ParseFailure(message: "not a JSON object") }
        func integer(_ name: String) throws(ParseFailure) -> Int {
            guard case .integer(let number)? = members[name] else { throw ParseFailure(message: "\"\(name)\" is not an integer") }
            return Int(number)
        }
        func counts(_ name: String) throws(ParseFailure) -> [String: Int] {
            guard case .object(let entries)? = members[name] else { throw ParseFailure(message: "\"\(name)\" is not an object") }
            var result: [String: Int] = [:]
            for (key, value) in entries {
                guard case .integer(let number) = value else { throw ParseFailure(message: "\"\(name)\".\"\(key)\" is not an integer") }
                result[key] = Int(number)
            }
            return result
        }
        tokens = try integer("tokens")
        valid = try integer("valid")
        guard try integer("rejected") == tokens - valid else { throw ParseFailure(message: "\"rejected\" is not tokens - valid") }
        guard case .object(let evaluation)? = members["evaluation"] else { throw ParseFailure(message: "\"evaluation\" is not an object") }
        switch (evaluation["mode"], evaluation["time"]) {
        case (.string("iat")?, nil): evaluatedAt = nil
        case (.string("now")?, .integer(let time)?): evaluatedAt = Double(time)
        case (.string("now")?, .number(let time)?): evaluatedAt = time
        default: throw ParseFailure(message: "\"evaluation\" is neither {\"mode\":\"iat\"} nor {\"mode\":\"now\",\"time\":T}")
        }
        switch members["nonce_checked"] {
        case .bool(let checked)?: nonceChecked = checked
        case nil: nonceChecked = false  // reports saved before the field was written
        default: throw ParseFailure(message: "\"nonce_checked\" is not a boolean")
        }
        guard case .object(let timeline)? = members["timeline"], case .string(let unit)? = timeline["unit"],
            case .array(let buckets)? = timeline["buckets"], case .integer(let without)? = timeline["without_iat"],
            let hours: Int64 = ["hour": 1, "day": 24, "week": 168][unit]
        else { throw ParseFailure(message: "\"timeline\" is not {\"unit\", \"buckets\", \"without_iat\"}") }
        var parsed: [TimelineBucket] = []
        for bucket in buckets {
            guard case .array(let fields) = bucket, fields.count == 3, case .integer(let start) = fields[0], case .integer(let valid) = fields[1],
                case .integer(let rejected) = fields[2], start % (hours * 3600) == 0, parsed.last.map({ $0.start < start }) ?? true
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
        repeatedTokens = try integer("repeated_tokens")
        repeatedOccurrences = try integer("repeated_occurrences")
        sharedNonces = try integer("shared_nonces")
        tokensSharingNonces = try integer("tokens_sharing_nonces")
        anomalies = try counts("anomalies")
        discarded = try counts("discarded")
        func sighting(_ value: JSONValue?) throws(ParseFailure) -> Sighting {
            guard case .object(let fields)? = value, case .integer(let column)? = fields["column"] else {
                throw ParseFailure(message: "a sighting is not {file, line, column} or {tag, column}")
            }
            if case .string(let file)? = fields["file"], case .integer(let line)? = fields["line"] {
                return Sighting(origin: .line(file: file, number: Int(line)), column: Int(column))
            }
            return Sighting(origin: .tag(fields["tag"]?.stringValue), column: Int(column))
        }
        func list(_ name: String, _ countName: String, _ fingerprintName: String) throws(ParseFailure) -> [Repeat] {
            guard case .array(let items)? = members[name] else { throw ParseFailure(message: "\"\(name)\" is not an array") }
            var result: [Repeat] = []
            for item in items {
                guard case .object(let fields) = item, case .string(let fingerprint)? = fields[fingerprintName],
                    case .integer(let count)? = fields[countName]
                else { throw ParseFailure(message: "an entry of \"\(name)\" lacks \(fingerprintName) or \(countName)") }
                result.append(Repeat(fingerprint: fingerprint, count: Int(count), first: try sighting(fields["first"]), last: try sighting(fields["last"])))
            }
            return result
        }
        savedRepeats = try list("repeats", "occurrences", "fingerprint")
        savedSharedNonces = try list("shared_nonce_list", "tokens", "nonce_fingerprint")
        guard case .object(let table)? = members["tokens_table"], case .array(let rows)? = table["rows"],
            case .integer(let omitted)? = table["omitted"]
        else { throw ParseFailure(message: "\"tokens_table\" is not {\"rows\", \"omitted\"}") }
        tableOmitted = Int(omitted)
        for row in rows {
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
            tableRows.append(
                TableRow(
                    fingerprint: fingerprint, origin: origin, column: Int(column), foundIn: fields["found_in"]?.stringValue ?? "text",
                    valid: valid, reason: fields["reason"]?.stringValue,
                    keyID: fields["kid"]?.stringValue, audience: audience, issuedAt: fields["iat"]?.doubleValue))
        }
        guard case .bool(let capped)? = members["tracking_capped"] else { throw ParseFailure(message: "\"tracking_capped\" is not a Boolean") }
        trackingCapped = capped
    }

    init() {}

    /// Sorted by count, then name.
    private static func ranked(_ counts: [String: Int]) -> [(String, Int)] {
        counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    }

    /// `--format json`.
    func json() -> String {
        var text = OutputText()
        text.beginObject()
        func counts(_ name: String, _ values: [String: Int]) {
            text.key(name)
            text.beginObject()
            for (key, value) in Self.ranked(values) {
                text.key(key)
                text.integer(value)
            }
            text.endObject()
        }
        text.key("tokens")
        text.integer(tokens)
        text.key("valid")
        text.integer(valid)
        text.key("rejected")
        text.integer(tokens - valid)
        text.key("evaluation")
        text.beginObject()
        if let evaluatedAt {
            text.member("mode", "now")
            text.key("time")
            text.number(evaluatedAt)
        } else {
            text.member("mode", "iat")
        }
        text.endObject()
        text.key("nonce_checked")
        text.bool(nonceChecked)
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

    /// `--format table` (`markdown: false`) or `--format markdown`.
    func render(markdown: Bool) -> String {
        var out = markdown ? "# Token audit\n\n" : "TOKEN AUDIT\n\n"
        let distinct = tokens - repeatedOccurrences
        let found = "\(tokens) occurrence\(tokens == 1 ? "" : "s") of \(distinct) distinct token\(distinct == 1 ? "" : "s")"
        out += markdown
            ? "**\(found)**: **\(valid)** valid, **\(tokens - valid)** rejected.\n\n"
            : "\(found): \(valid) valid, \(tokens - valid) rejected\n\n"
        if !nonceChecked {
            out += markdown
                ? "Nonces were not checked: captured tokens come without their raw nonces. Nonce anomalies are listed below.\n\n"
                : "Nonces were not checked: captured tokens come without their raw nonces.\nNonce anomalies are listed below.\n\n"
        }
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
        section("By kid", Self.ranked(byKeyID))
        section("By issuer", Self.ranked(byIssuer))
        section("By audience", Self.ranked(byAudience))
        section("Lifetime (exp - iat)", Self.lifetimeBuckets.compactMap { bucket in lifetimes[bucket].map { (bucket, $0) } })
        section(
            "Repeats",
            [
                ("tokens seen more than once", repeatedTokens), ("extra occurrences", repeatedOccurrences),
                ("nonces shared by distinct tokens (possible replay)", sharedNonces),
                ("distinct tokens sharing a nonce", tokensSharingNonces),
            ])
        section("Anomalies worth a look", Self.ranked(anomalies))
        section("Discarded candidates", Self.ranked(discarded))
        let rejectedRows = tableRows.filter { !$0.valid }
        if !rejectedRows.isEmpty {
            let shown = rejectedRows.prefix(Self.textRowLimit)
            let title = "Rejected occurrences (the first \(shown.count) of \(tokens - valid), in input order)"
            if markdown {
                out += "## \(title)\n\n| where | found in | reason | kid | fingerprint |\n| --- | --- | --- | --- | --- |\n"
                for row in shown {
                    let cells = [Sighting(origin: row.origin, column: row.column).text, row.foundIn, row.reason ?? "", row.keyID ?? "", String(row.fingerprint.prefix(16))]
                    out += "| " + cells.map { $0.replacingOccurrences("|", "\\|") }.joined(separator: " | ") + " |\n"
                }
            } else {
                out += "\(title)\n"
                let places = shown.map { Sighting(origin: $0.origin, column: $0.column).text }
                let placeWidth = min(60, places.map(\.count).max() ?? 0)
                let foundWidth = min(30, shown.map(\.foundIn.count).max() ?? 0)
                for (row, place) in zip(shown, places) {
                    out += "  " + place.padding(placeWidth) + "  " + row.foundIn.padding(foundWidth) + "  "
                        + (row.reason ?? "").padding(18) + " " + (row.keyID ?? "-").padding(12) + " " + row.fingerprint.prefix(16) + "\n"
                }
            }
            out += "\n"
        }
        if trackingCapped { out += "(repeat tracking stopped at \(Self.trackingLimit) distinct values)\n" }
        return out
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
