/// A token whose signature, claims and provider rules all checked out.
public struct VerifiedToken: Sendable {
    /// The header's `alg` (on the allow-list and fitting the key).
    public let algorithm: SignatureAlgorithm
    /// The header's `kid`, when present.
    public let keyID: String?
    /// The typed registered claims (`exp` is always present).
    public let claims: RegisteredClaims
    /// The provider claims the policy's rules read, typed (empty without provider rules).
    public var provider: ProviderClaims { providerBox?.claims ?? ProviderClaims() }
    /// The decoded payload: the exact JSON bytes that were signed.
    public let payload: [UInt8]

    /// Provider claims live behind one reference, so a token without provider rules carries none
    /// and copying a token stays cheap.
    private let providerBox: ProviderClaimsBox?

    init(algorithm: SignatureAlgorithm, keyID: String?, claims: RegisteredClaims, provider: ProviderClaims?, payload: [UInt8]) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.claims = claims
        self.providerBox = provider.map(ProviderClaimsBox.init)
        self.payload = payload
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

/// An immutable holder for a token's provider claims.
private final class ProviderClaimsBox: Sendable {
    let claims: ProviderClaims
    init(_ claims: ProviderClaims) { self.claims = claims }
}
