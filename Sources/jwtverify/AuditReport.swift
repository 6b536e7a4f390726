import JWTVerify

/// One token found by `audit`, evaluated.
struct AuditRecord: Sendable {
    let file: String
    let line: Int
    let column: Int
    let token: [UInt8]
    let fingerprintBytes: [UInt8]
    let evaluatedAt: Double?
    let result: Result<VerifiedToken, VerificationError>
    let peek: UnverifiedToken
    let keySource: String?

    /// SHA-256 of the token, in hex.
    var fingerprint: String {
        let digits = Array("0123456789abcdef")
        return String(fingerprintBytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// `exp - iat`, when both are there.
    var lifetime: Double? {
        guard let exp = peek.claims.expiresAt, let iat = peek.claims.issuedAt else { return nil }
        return exp - iat
    }

    /// Appends the JSON Lines record (`--format jsonl`).
    func appendJSON(to text: inout JSONText, showToken: Bool) {
        text.beginObject()
        text.key("file")
        text.string(file)
        text.key("line")
        text.integer(line)
        text.key("column")
        text.integer(column)
        text.key("valid")
        switch result {
        case .success:
            text.bool(true)
            text.key("reason")
            text.null()
            text.key("detail")
            text.null()
        case .failure(let error):
            text.bool(false)
            text.key("reason")
            text.string(error.reason.rawValue)
            text.key("detail")
            text.string(error.detail)
        }
        text.member("alg", peek.algorithm)
        text.member("kid", peek.keyID)
        text.member("key_source", keySource)
        text.member("iss", peek.claims.issuer)
        text.audience(peek.claims)
        text.member("sub", peek.claims.subject)
        text.member("iat", peek.claims.issuedAt)
        text.member("exp", peek.claims.expiresAt)
        text.member("lifetime", lifetime)
        text.member("evaluated_at", evaluatedAt)
        text.key("fingerprint")
        text.string(fingerprint)
        if showToken {
            text.key("token")
            text.string(token)
        }
        text.endObject()
        text.appendRaw([UInt8(ascii: "\n")])
    }
}

/// The first 128 bits of a SHA-256: what repeat tracking keeps instead of tokens or nonces.
struct DigestKey: Hashable {
    let high: UInt64
    let low: UInt64
    init(_ digest: [UInt8]) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for i in 0..<8 { high = high << 8 | UInt64(digest[i]) }
        for i in 8..<16 { low = low << 8 | UInt64(digest[i]) }
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

    private var seen: [DigestKey: Int] = [:]
    private var nonceOwners: [DigestKey: Int] = [:]

    static let lifetimeBuckets = ["<= 10 min", "<= 1 h", "<= 24 h", "> 24 h", "unknown"]

    mutating func add(_ record: AuditRecord, allowList: Set<SignatureAlgorithm>) {
        tokens += 1
        var firstSighting = true
        let tokenKey = DigestKey(record.fingerprintBytes)
        if let count = seen[tokenKey] {
            firstSighting = false
            repeatedOccurrences += 1
            if count == 1 { repeatedTokens += 1 }
            seen[tokenKey] = count + 1
        } else if seen.count < Self.trackingLimit {
            seen[tokenKey] = 1
        } else {
            trackingCapped = true
        }
        switch record.result {
        case .success: valid += 1
        case .failure(let error): byReason[error.reason.rawValue, default: 0] += 1
        }
        byKeyID[record.peek.keyID ?? "(none)", default: 0] += 1
        byIssuer[record.peek.claims.issuer ?? "(none)", default: 0] += 1
        for audience in record.peek.claims.audience ?? ["(none)"] { byAudience[audience, default: 0] += 1 }
        let bucket: String
        switch record.lifetime {
        case nil: bucket = "unknown"
        case let seconds? where seconds <= 600: bucket = "<= 10 min"
        case let seconds? where seconds <= 3600: bucket = "<= 1 h"
        case let seconds? where seconds <= 86_400: bucket = "<= 24 h"
        default: bucket = "> 24 h"
        }
        lifetimes[bucket, default: 0] += 1
        if firstSighting, let nonce = record.peek.claims.nonce {
            let nonceKey = DigestKey(MessageDigest.sha256.hash(Array(nonce.utf8)))
            if let count = nonceOwners[nonceKey] {
                nonceOwners[nonceKey] = count + 1
                if count == 1 {
                    sharedNonces += 1
                    tokensSharingNonces += 2
                } else {
                    tokensSharingNonces += 1
                }
            } else if nonceOwners.count < Self.trackingLimit {
                nonceOwners[nonceKey] = 1
            } else {
                trackingCapped = true
            }
        }
        // Anomalies worth a look.
        let alg = record.peek.algorithm ?? ""
        if alg.lowercased() == "none" { anomalies["alg none", default: 0] += 1 }
        if alg.hasPrefix("HS") { anomalies["HMAC (HS*) alg", default: 0] += 1 }
        if !alg.isEmpty, alg.lowercased() != "none", !alg.hasPrefix("HS"),
            SignatureAlgorithm(name: alg).map({ !allowList.contains($0) }) ?? true
        {
            anomalies["alg outside the allow-list", default: 0] += 1
        }
        if case .failure(let error) = record.result, error.reason == .unknownKeyID { anomalies["unknown kid", default: 0] += 1 }
        if record.peek.claims.nonce == nil { anomalies["no nonce claim", default: 0] += 1 }
        if let iat = record.peek.claims.issuedAt, let at = record.evaluatedAt, iat > at {
            anomalies["iat after the evaluation time", default: 0] += 1
        }
        if let lifetime = record.lifetime, lifetime > 86_400 { anomalies["lifetime over 24 h", default: 0] += 1 }
        if case .object(let claims)? = record.peek.payload, let verified = claims["email_verified"],
            verified == .bool(false) || verified == .string("false")
        {
            anomalies["email_verified false", default: 0] += 1
        }
    }

    mutating func discard(_ reason: TokenExtractor.Discard) { discarded[reason.rawValue, default: 0] += 1 }

    /// Sorted by count, then name.
    private static func ranked(_ counts: [String: Int]) -> [(String, Int)] {
        counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    }

    /// `--format json`.
    func json() -> String {
        var text = JSONText()
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
        counts("anomalies", anomalies)
        counts("discarded", discarded)
        text.key("tracking_capped")
        text.bool(trackingCapped)
        text.endObject()
        return text.string + "\n"
    }

    /// `--format table` (`markdown: false`) or `--format markdown`.
    func render(markdown: Bool) -> String {
        var out = markdown ? "# Token audit\n\n" : "TOKEN AUDIT\n\n"
        out += markdown
            ? "**\(tokens)** tokens: **\(valid)** valid, **\(tokens - valid)** rejected.\n\n"
            : "\(tokens) tokens: \(valid) valid, \(tokens - valid) rejected\n\n"
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
        if trackingCapped { out += "(repeat tracking stopped at \(Self.trackingLimit) distinct values)\n" }
        return out
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
