/// Why a token was rejected: exactly one stable ``Reason`` plus a human-readable detail.
///
/// Equality and hashing look only at ``reason``, so tests and callers can compare with
/// `error == VerificationError(.expired)` whatever the detail says. The detail never contains key
/// material or the whole token.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable rejection code. The same words appear in the CLI's JSON output
    /// and in the README; new codes may be added, existing ones never change meaning.
    public struct Reason: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        /// The code, e.g. `"bad_signature"`.
        public let rawValue: String

        /// A reason from its code (any string is representable, so future codes round-trip).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The token is longer than the configured maximum.
        public static let tooLarge = Reason(rawValue: "too_large")
        /// Not a well-formed compact JWS/JWT: segments, base64url, or header/payload JSON.
        public static let malformed = Reason(rawValue: "malformed")
        /// The header's `alg` is not on the allow-list (or the token is a 5-segment JWE).
        public static let unsupportedAlgorithm = Reason(rawValue: "unsupported_alg")
        /// The header's `alg` is `none`, in any letter case.
        public static let algorithmNone = Reason(rawValue: "alg_none")
        /// A header parameter is invalid: `alg` missing or not a string, `kid` or `typ` wrong, `b64` not true.
        public static let headerInvalid = Reason(rawValue: "header_invalid")
        /// The header has `crit`: no JWS extension is implemented.
        public static let critUnsupported = Reason(rawValue: "crit_unsupported")
        /// No key has the token's `kid` (or the token has no `kid` and the key set has several keys).
        public static let unknownKeyID = Reason(rawValue: "unknown_kid")
        /// The selected key may not verify the header's `alg` (type, curve, `alg`, `use`, `key_ops`, size, import).
        public static let keyAlgorithmMismatch = Reason(rawValue: "key_alg_mismatch")
        /// The signature does not verify.
        public static let badSignature = Reason(rawValue: "bad_signature")
        /// A registered claim has the wrong JSON type or range, or `exp` is missing.
        public static let claimType = Reason(rawValue: "claim_type")
        /// `iss` is missing or not exactly the expected issuer.
        public static let issuerMismatch = Reason(rawValue: "issuer_mismatch")
        /// `aud` is missing or names none of the accepted audiences.
        public static let audienceMismatch = Reason(rawValue: "audience_mismatch")
        /// `now ≥ exp + leeway`.
        public static let expired = Reason(rawValue: "expired")
        /// `nbf > now + leeway`.
        public static let notYetValid = Reason(rawValue: "not_yet_valid")
        /// `iat > now + leeway`.
        public static let issuedInFuture = Reason(rawValue: "issued_in_future")
        /// A nonce was expected but the token has no `nonce` claim.
        public static let nonceMissing = Reason(rawValue: "nonce_missing")
        /// The `nonce` claim is not the lowercase hex SHA-256 of the raw nonce.
        public static let nonceMismatch = Reason(rawValue: "nonce_mismatch")
        /// No keys could be had from a remote key source (never fetched, or stale beyond the window).
        public static let keySetUnavailable = Reason(rawValue: "jwks_unavailable")

        /// The reasons of the checks every policy runs, in the order they run.
        public static let generic: [Reason] = [
            .tooLarge, .malformed, .unsupportedAlgorithm, .algorithmNone, .headerInvalid, .critUnsupported,
            .unknownKeyID, .keyAlgorithmMismatch, .badSignature, .claimType, .issuerMismatch, .audienceMismatch,
            .expired, .notYetValid, .issuedInFuture, .nonceMissing, .nonceMismatch,
        ]

        /// Every reason the verifier can produce: the generic checks' in their order, the App
        /// Store's key checks (where others choose a key), the providers' rules, and the remote key
        /// set's state. Each provider declares its own reasons beside its rules.
        public static let all: [Reason] = ReasonEntry.all.map(\.reason)

        /// The code.
        public var description: String { rawValue }
    }

    /// The stable code.
    public let reason: Reason
    /// What exactly was wrong, for people (not for matching).
    public let detail: String

    /// An error with `reason` and an optional `detail`.
    public init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    /// `reason: detail`.
    public var description: String { detail.isEmpty ? reason.rawValue : "\(reason.rawValue): \(detail)" }

    /// Compares reasons only.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason }

    /// Hashes the reason only.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
}
