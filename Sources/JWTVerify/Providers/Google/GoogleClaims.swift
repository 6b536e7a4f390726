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

    /// Reads and types Google's claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> GoogleClaims {
        var claims = GoogleClaims()
        try readFields(reader, into: &claims)
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

extension GoogleClaims: ClaimFieldTable, ProviderClaimMembers {
    /// Each claim once, in name order.
    package static func fields<Visitor: ClaimFieldVisitor>(_ claims: inout Self, _ visitor: inout Visitor)
        throws(VerificationError)
    {
        try visitor.text("azp", &claims.authorizedParty)
        try visitor.text("email", &claims.email)
        try visitor.flag("email_verified", &claims.emailVerified)
        try visitor.text("hd", &claims.hostedDomain)
        try visitor.text("name", &claims.name)
        try visitor.text("picture", &claims.picture)
    }

    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) { forEachField(body) }
}
