/// A token whose signature, claims and provider rules all checked out.
///
/// The values live in one immutable box: a verified token is handed from the verifier to its
/// cache, to a result and to a report, and each copy costs one reference count, not one per field.
/// `claims` and `provider` are lent, not copied: reading `token.claims.subject` retains the one
/// string it returns, not every string of the claims.
public struct VerifiedToken: Sendable {
    /// The header's `alg` (on the allow-list and fitting the key).
    public var algorithm: SignatureAlgorithm { storage.algorithm }
    /// The header's `kid`, when present.
    public var keyID: String? { storage.keyID }
    /// The typed registered claims (`exp` is always present).
    public var claims: RegisteredClaims { _read { yield storage.claims } }
    /// The provider claims the policy's rules read, typed (empty without provider rules).
    public var provider: ProviderClaims { _read { yield storage.provider } }
    /// The decoded payload: the exact JSON bytes that were signed.
    public var payload: [UInt8] { storage.payload }

    private let storage: Storage

    init(
        algorithm: SignatureAlgorithm, keyID: String?, claims: RegisteredClaims, provider: ProviderClaims?,
        payload: [UInt8],
        captured: [JSONValue?] = []
    ) {
        storage = Storage(
            algorithm: algorithm, keyID: keyID, claims: claims, provider: provider, payload: payload, captured: captured
        )
    }

    /// The claim the policy kept at `index` of its ``VerificationPolicy/capturedClaims`` (`nil`
    /// when absent from the token), read in the verifier's own pass over the payload.
    package func capturedClaim(at index: Int) -> JSONValue? {
        index < storage.captured.count ? storage.captured[index] : nil
    }

    /// Whether the token kept the policy's captured claims (a verifier whose policy names some).
    package var hasCapturedClaims: Bool { !storage.captured.isEmpty }

    private final class Storage: Sendable {
        let algorithm: SignatureAlgorithm
        let keyID: String?
        let claims: RegisteredClaims
        let provider: ProviderClaims
        let payload: [UInt8]
        let captured: [JSONValue?]

        init(
            algorithm: SignatureAlgorithm, keyID: String?, claims: RegisteredClaims, provider: ProviderClaims?,
            payload: [UInt8],
            captured: [JSONValue?]
        ) {
            self.algorithm = algorithm
            self.keyID = keyID
            self.claims = claims
            self.provider = provider ?? ProviderClaims()
            self.payload = payload
            self.captured = captured
        }
    }

    /// Runs `body` with the registered and provider claims lent straight from the token's box (no
    /// copy, no reference count per claim), for writers that read many of them.
    package func withClaims<R>(_ body: (borrowing RegisteredClaims, borrowing ProviderClaims) -> R) -> R {
        body(storage.claims, storage.provider)
    }

    /// The expiry time (always present in a verified token).
    public var expiresAt: Double { claims.expiresAt ?? 0 }

    /// Any claim of the payload by name, as a JSON value (parses the payload on each call).
    public func claim(_ name: String) -> JSONValue? {
        guard case .success(let document) = JSONDocument.parse(payload) else { return nil }
        return document.withRoot { $0.member(name)?.value }
    }

    /// Every claim of the payload (parses the payload on each call).
    public var allClaims: [String: JSONValue] {
        guard case .success(let document) = JSONDocument.parse(payload),
            case .object(let members) = document.withRoot({ $0.value })
        else { return [:] }
        return members
    }
}
