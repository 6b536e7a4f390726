/// Google ID tokens: the generic checks, with the profile claims typed, and optional `hd` and
/// `azp` checks.
public struct GoogleClaims: ProviderEmailClaims, Hashable {
    /// The claims as the verifier read them.
    public let base: ProviderClaims

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard token.provider.kind == .google else { return nil }
        base = token.provider
    }

    /// `hd`: the Google Workspace domain.
    public var hostedDomain: String? { base.hostedDomain }
    /// `azp`: the client the token was issued to.
    public var authorizedParty: String? { base.authorizedParty }
    /// `name`.
    public var name: String? { base.name }
    /// `picture`.
    public var picture: String? { base.picture }

    /// Reads and types Google's claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        claims.email = try reader.string("email")
        claims.hostedDomain = try reader.string("hd")
        claims.authorizedParty = try reader.string("azp")
        claims.name = try reader.string("name")
        claims.picture = try reader.string("picture")
        claims.emailVerified = try reader.flag("email_verified")
    }

    /// `hd` exactly the required domain; an `azp` the token carries exactly the required party.
    static func check(_ claims: ProviderClaims, hostedDomain: String?, authorizedParty: String?) -> VerificationError? {
        if let hostedDomain, claims.hostedDomain != hostedDomain {
            return VerificationError(.hostedDomainMismatch, detail: "hd is not \(Verifier.quoted(hostedDomain))")
        }
        if let authorizedParty, let azp = claims.authorizedParty, azp != authorizedParty {
            return VerificationError(.audienceMismatch, detail: "azp is not \(Verifier.quoted(authorizedParty))")
        }
        return nil
    }
}
