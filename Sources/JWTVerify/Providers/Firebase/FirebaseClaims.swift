/// Firebase Authentication ID tokens and session cookies: `iat` required, `sub` 1–128
/// characters, `auth_time` required and not in the future.
public struct FirebaseClaims: ProviderEmailClaims, Hashable {
    /// The user's ID: `sub`, which Firebase calls `uid`.
    public let uid: String
    /// Whether the token is a session cookie (``VerificationPolicy/firebaseSessionCookie(project:)``)
    /// rather than an ID token.
    public let isSessionCookie: Bool
    /// `auth_time`, in seconds since the epoch (always there: the rules require it).
    public let authTime: Double
    /// `email`.
    public private(set) var email: String?
    /// `email_verified`.
    public private(set) var emailVerified: Bool?
    /// `firebase.sign_in_provider`: `password`, `apple.com`, `google.com`, ...
    public private(set) var signInProvider: String?
    /// `firebase.identities`: the user's identities per provider.
    public private(set) var identities: JSONValue?

    private init(uid: String, isSessionCookie: Bool, authTime: Double) {
        self.uid = uid
        self.isSessionCookie = isSessionCookie
        self.authTime = authTime
    }

    /// Reads and types Firebase's claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, sessionCookie: Bool) throws(VerificationError)
        -> FirebaseClaims
    {
        try reader.requireIssuedAt()
        guard let subject = reader.payload.member("sub")?.string, !subject.isEmpty, subject.count <= 128 else {
            throw VerificationError(.claimType, detail: "sub must be a non-empty string of at most 128 characters")
        }
        guard let authTime = reader.payload.member("auth_time")?.number else {
            throw VerificationError(.claimType, detail: "auth_time is missing or not a number")
        }
        var claims = FirebaseClaims(uid: subject, isSessionCookie: sessionCookie, authTime: authTime)
        claims.email = try reader.string("email")
        claims.emailVerified = try reader.flag("email_verified")
        if let firebase = reader.payload.member("firebase") {
            guard firebase.kind == .object else {
                throw VerificationError(.claimType, detail: "firebase is not an object")
            }
            if let provider = firebase.member("sign_in_provider") {
                guard let value = provider.string else {
                    throw VerificationError(.claimType, detail: "firebase.sign_in_provider is not a string")
                }
                claims.signInProvider = value
            }
            if let identities = firebase.member("identities") {
                guard identities.kind == .object else {
                    throw VerificationError(.claimType, detail: "firebase.identities is not an object")
                }
                claims.identities = identities.value
            }
        }
        return claims
    }

    /// `auth_time` not in the future (with the leeway).
    func check(now: Double, leeway: Double) -> VerificationError? {
        guard authTime > now + leeway else { return nil }
        return VerificationError(.issuedInFuture, detail: "auth_time \(Verifier.number(authTime)) is in the future")
    }
}

extension FirebaseClaims: ProviderClaimMembers {
    /// The members in name order (`sub`, which records repeat as `uid`, is the writer's).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        member("auth_time", authTime, body)
        member("email", email, body)
        member("email_verified", emailVerified, body)
        if let identities { body("firebase.identities", identities) }
        member("firebase.sign_in_provider", signInProvider, body)
    }
}
