/// Google ID tokens: the generic checks, with the profile claims typed, and optional `hd` and
/// `azp` checks.
public struct GoogleClaims: ProviderEmailClaims, Hashable {
    /// `email`.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?
    /// `hd`: the Google Workspace domain.
    public var hostedDomain: String?
    /// `azp`: the client the token was issued to.
    public var authorizedParty: String?
    /// `name`.
    public var name: String?
    /// `picture`.
    public var picture: String?

    /// Claims with no member present.
    public init() {}

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard case .google(let claims) = token.provider else { return nil }
        self = claims
    }

    /// Reads and types Google's claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> GoogleClaims {
        var claims = GoogleClaims()
        claims.email = try reader.string("email")
        claims.hostedDomain = try reader.string("hd")
        claims.authorizedParty = try reader.string("azp")
        claims.name = try reader.string("name")
        claims.picture = try reader.string("picture")
        claims.emailVerified = try reader.flag("email_verified")
        return claims
    }

    /// `hd` exactly the required domain; an `azp` the token carries exactly the required party.
    func check(hostedDomain required: String?, authorizedParty party: String?) -> VerificationError? {
        if let required, !exactlyEquals(hostedDomain, required) {
            return VerificationError(.hostedDomainMismatch, detail: "hd is not \(Verifier.quoted(required))")
        }
        if let party, let authorizedParty, !exactlyEquals(authorizedParty, party) {
            return VerificationError(.audienceMismatch, detail: "azp is not \(Verifier.quoted(party))")
        }
        return nil
    }
}

extension GoogleClaims: ProviderClaimMembers {
    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        member("azp", authorizedParty, body)
        member("email", email, body)
        member("email_verified", emailVerified, body)
        member("hd", hostedDomain, body)
        member("name", name, body)
        member("picture", picture, body)
    }
}
