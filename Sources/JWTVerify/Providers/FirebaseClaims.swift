/// Firebase Authentication ID tokens and session cookies: `iat` required, `sub` 1–128
/// characters, `auth_time` required and not in the future.
public struct FirebaseClaims: ProviderEmailClaims, Hashable {
    /// The claims as the verifier read them.
    public let base: ProviderClaims
    /// The user's ID: `sub`, which Firebase calls `uid`.
    public let uid: String

    /// The claims of a token verified under this provider's rules.
    public init?(_ token: VerifiedToken) {
        guard token.provider.kind == .firebase || token.provider.kind == .firebaseSession, let uid = token.claims.subject else { return nil }
        base = token.provider
        self.uid = uid
    }

    /// Whether the token is a session cookie (``VerificationPolicy/firebaseSessionCookie(project:)``)
    /// rather than an ID token.
    public var isSessionCookie: Bool { base.kind == .firebaseSession }

    /// `firebase.sign_in_provider`: `password`, `apple.com`, `google.com`, ...
    public var signInProvider: String? { base.signInProvider }
    /// `firebase.identities`: the user's identities per provider.
    public var identities: JSONValue? { base.identities }
    /// `auth_time`, in seconds since the epoch (always there: the rules require it).
    public var authTime: Double { base.authTime ?? 0 }

    /// Reads and types Firebase's claims.
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        try reader.requireIssuedAt()
        guard let subject = reader.payload.member("sub")?.string, !subject.isEmpty, subject.count <= 128 else {
            throw VerificationError(.claimType, detail: "sub must be a non-empty string of at most 128 characters")
        }
        guard let authTime = reader.payload.member("auth_time")?.number else {
            throw VerificationError(.claimType, detail: "auth_time is missing or not a number")
        }
        claims.authTime = authTime
        claims.email = try reader.string("email")
        claims.emailVerified = try reader.flag("email_verified")
        if let firebase = reader.payload.member("firebase") {
            guard firebase.kind == .object else { throw VerificationError(.claimType, detail: "firebase is not an object") }
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
    }

    /// `auth_time` not in the future (with the leeway).
    static func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        if let authTime = claims.authTime, authTime > now + leeway {
            return VerificationError(.issuedInFuture, detail: "auth_time \(Verifier.number(authTime)) is in the future")
        }
        return nil
    }
}
