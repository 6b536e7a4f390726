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
