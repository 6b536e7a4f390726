/// Firebase Authentication ID tokens and session cookies: `iat` required, `sub` 1–128
/// characters, `auth_time` required and not in the future.
public struct FirebaseClaims: ProviderEmailClaims, Hashable {
    /// The user's ID: `sub`, which Firebase calls `uid`.
    public let uid: String
    /// Whether the token is a session cookie (``VerificationPolicy/firebaseSessionCookie(project:)``)
    /// rather than an ID token.
    public let isSessionCookie: Bool
    /// `auth_time`, in seconds since the epoch (always there: the rules require it).
    public private(set) var authTime: Double = 0
    /// `email`.
    public private(set) var email: String?
    /// `email_verified`.
    public private(set) var emailVerified: Bool?
    /// `firebase.sign_in_provider`: `password`, `apple.com`, `google.com`, ...
    public private(set) var signInProvider: String?
    /// `firebase.identities`: the user's identities per provider.
    public private(set) var identities: JSONValue?

    private init(uid: String, isSessionCookie: Bool) {
        self.uid = uid
        self.isSessionCookie = isSessionCookie
    }

    /// Reads and types Firebase's claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, sessionCookie: Bool) throws(VerificationError)
        -> FirebaseClaims
    {
        try reader.requireIssuedAt()
        guard let subject = reader.payload.member("sub")?.string, !subject.isEmpty, subject.count <= 128 else {
            throw VerificationError(.claimType, detail: "sub must be a non-empty string of at most 128 characters")
        }
        var claims = FirebaseClaims(uid: subject, isSessionCookie: sessionCookie)
        try readFields(reader, into: &claims)
        return claims
    }

    /// `auth_time` not in the future (with the leeway).
    func check(now: Double, leeway: Double) -> VerificationError? {
        guard authTime > now + leeway else { return nil }
        return VerificationError(.issuedInFuture, detail: "auth_time \(Verifier.number(authTime)) is in the future")
    }
}

extension FirebaseClaims: ClaimFieldTable, ProviderClaimMembers {
    /// Each claim once, in name order (`sub`, which records repeat as `uid`, is the writer's).
    package static func fields<Visitor: ClaimFieldVisitor>(_ claims: inout Self, _ visitor: inout Visitor)
        throws(VerificationError)
    {
        try visitor.requiredNumber("auth_time", &claims.authTime)
        try visitor.text("email", &claims.email)
        try visitor.flag("email_verified", &claims.emailVerified)
        try visitor.object("firebase", "identities", listed: "firebase.identities", &claims.identities)
        try visitor.text("firebase", "sign_in_provider", listed: "firebase.sign_in_provider", &claims.signInProvider)
    }

    /// The members in name order.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) { forEachField(body) }
}
