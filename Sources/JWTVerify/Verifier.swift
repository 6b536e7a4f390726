#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Verifies compact JWS tokens (JWTs) against a key set and a claim policy.
///
/// Build one per configuration and call ``verify(_:nonce:at:)`` from any number of threads: it is
/// synchronous, holds no lock and keeps no state between calls. A token is either fully verified
/// (structure, header, key, signature, claim types, `iss`, `aud`, `exp`/`nbf`/`iat`, nonce) or
/// rejected with one ``VerificationError/Reason``; the checks run in a fixed order, so the reason is
/// always the first check that failed.
///
/// ```swift
/// let verifier = Verifier(
///     keys: try JWKSet(contentsOfFile: "apple-keys.json"),
///     issuer: "https://appleid.apple.com",
///     audiences: ["com.example.app"])
/// let token = try verifier.verify(identityToken, nonce: rawNonce)
/// print(token.claims.subject ?? "")
/// ```
public struct Verifier: Sendable {
    /// The keys tokens may be signed with.
    public let keys: JWKSet
    /// The exact `iss` required; `nil` only for signature-and-time audits.
    public let issuer: String?
    /// The accepted `aud` values (any of them); `nil` only for signature-and-time audits.
    public let audiences: [String]?
    /// The accepted `alg` values.
    public let algorithms: Set<SignatureAlgorithm>
    /// Clock-skew allowance in seconds, applied to `exp`, `nbf` and `iat`.
    public let leeway: Double
    /// Longest token accepted, in octets; checked before anything else.
    public let maxTokenBytes: Int
    /// The current time in seconds since the epoch (injectable for tests and audits).
    public let clock: @Sendable () -> Double

    let allowList: AlgorithmAllowList
    /// The accepted issuers' bytes (usually one; Google has two spellings).
    let issuerBytes: [[UInt8]]?
    let audienceBytes: [[UInt8]]?
    let knownStrings: KnownClaimStrings

    /// The default token size limit: 64 KiB.
    public static let defaultMaxTokenBytes = 65536
    /// The default leeway: 60 seconds.
    public static let defaultLeeway = 60.0

    /// The system's wall clock, with sub-second precision.
    public static let systemClock: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// A verifier requiring `iss == issuer` and `aud` to name one of `audiences`.
    ///
    /// - Parameters:
    ///   - keys: the key set; only its keys are ever used, never keys named by a token.
    ///   - issuer: the exact issuer, e.g. `https://appleid.apple.com`.
    ///   - audiences: accepted audiences (bundle IDs, Services IDs, client IDs, project IDs).
    ///   - algorithms: the `alg` allow-list; RS256 and ES256 by default.
    ///   - leeway: clock-skew allowance in seconds (≥ 0), 60 by default.
    ///   - maxTokenBytes: longest token accepted, 65536 by default.
    ///   - clock: the time source, the system clock by default.
    public init(
        keys: JWKSet,
        issuer: String,
        audiences: [String],
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed,
        leeway: Double = Verifier.defaultLeeway,
        maxTokenBytes: Int = Verifier.defaultMaxTokenBytes,
        clock: @escaping @Sendable () -> Double = Verifier.systemClock
    ) {
        self.init(
            keys: keys, optionalIssuer: issuer, optionalAudiences: audiences, algorithms: algorithms,
            leeway: leeway, maxTokenBytes: maxTokenBytes, clock: clock)
    }

    /// A verifier that may leave `iss` and/or `aud` unchecked (`nil`): for audits of captured tokens
    /// whose issuers are being discovered, never for accepting sign-ins.
    package init(
        keys: JWKSet,
        optionalIssuer issuer: String?,
        optionalAudiences audiences: [String]?,
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed,
        leeway: Double = Verifier.defaultLeeway,
        maxTokenBytes: Int = Verifier.defaultMaxTokenBytes,
        clock: @escaping @Sendable () -> Double = Verifier.systemClock
    ) {
        self.init(
            keys: keys, optionalIssuers: issuer.map { [$0] }, optionalAudiences: audiences, algorithms: algorithms,
            leeway: leeway, maxTokenBytes: maxTokenBytes, clock: clock)
    }

    /// A verifier accepting any of `issuers` (`nil`: unchecked).
    package init(
        keys: JWKSet,
        optionalIssuers issuers: [String]?,
        optionalAudiences audiences: [String]?,
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed,
        leeway: Double = Verifier.defaultLeeway,
        maxTokenBytes: Int = Verifier.defaultMaxTokenBytes,
        clock: @escaping @Sendable () -> Double = Verifier.systemClock
    ) {
        precondition(leeway >= 0 && leeway.isFinite, "leeway must be a finite number of seconds >= 0")
        precondition(maxTokenBytes >= 0, "maxTokenBytes must not be negative")
        self.keys = keys
        self.issuer = issuers?.first
        self.audiences = audiences
        self.algorithms = algorithms
        self.leeway = leeway
        self.maxTokenBytes = maxTokenBytes
        self.clock = clock
        self.allowList = AlgorithmAllowList(algorithms)
        self.issuerBytes = issuers.map { $0.map { Array($0.utf8) } }
        self.audienceBytes = audiences.map { $0.map { Array($0.utf8) } }
        self.knownStrings = KnownClaimStrings(issuer: issuers?.first, audiences: audiences)
    }

    /// Verifies `token`.
    ///
    /// - Parameters:
    ///   - token: the compact JWS exactly as received (not trimmed).
    ///   - nonce: the raw nonce the app generated; when given, the token's `nonce` must be its
    ///     lowercase hex SHA-256. `nil` skips the nonce check.
    ///   - time: evaluate at this time (seconds since the epoch) instead of the clock's.
    /// - Returns: the verified token.
    /// - Throws: a ``VerificationError`` with the first failing check's reason.
    public func verify(_ token: String, nonce: String? = nil, at time: Double? = nil) throws(VerificationError) -> VerifiedToken {
        var token = token
        return try token.withUTF8 { evaluate(UnsafeRawBufferPointer($0), nonce: nonce, at: time) }.get()
    }

    /// Verifies a token given as bytes (see ``verify(_:nonce:at:)``).
    public func verify(_ token: [UInt8], nonce: String? = nil, at time: Double? = nil) throws(VerificationError) -> VerifiedToken {
        try token.withUnsafeBytes { evaluate($0, nonce: nonce, at: time) }.get()
    }

    /// Verifies a token in borrowed memory (see ``verify(_:nonce:at:)``).
    package func verify(bytes: UnsafeRawBufferPointer, nonce: String?, at time: Double?) throws(VerificationError) -> VerifiedToken {
        try evaluate(bytes, nonce: nonce, at: time).get()
    }

    /// Verifies borrowed token bytes with an optional raw nonce, as a `Result`.
    package func evaluate(_ bytes: UnsafeRawBufferPointer, nonce: String?, at time: Double?) -> Result<VerifiedToken, VerificationError> {
        let now = time ?? clock()
        guard var nonce else { return evaluate(bytes, rawNonce: nil, now: now) }
        return nonce.withUTF8 { evaluate(bytes, rawNonce: UnsafeRawBufferPointer($0), now: now) }
    }
}
