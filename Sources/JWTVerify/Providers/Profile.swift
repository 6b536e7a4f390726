/// A provider's rules, on top of the generic checks: the issuer(s), the algorithm, the key source,
/// the claims it requires, and how its claims are typed.
///
/// ```swift
/// let apple = ProfileVerifier(profile: .apple(), keys: appleKeys, audiences: ["com.example.app"])
/// let user = try apple.verify(identityToken, nonce: rawNonce)
/// let verified = user.claims["email_verified"]   // .bool(true), whether Apple sent true or "true"
/// ```
public struct Profile: Sendable {
    enum Kind: Sendable { case apple, appleNotification, firebase, google, oidc }

    let kind: Kind
    /// The profile's name, as `--profile` spells it.
    public let name: String
    /// The accepted issuers.
    public let issuers: [String]
    /// The accepted algorithms.
    public let algorithms: Set<SignatureAlgorithm>
    /// Where the provider publishes its keys, when it has one place.
    public let keySource: KeySetSource?
    /// Apple: accept a token without `nonce` when a nonce was expected but the token says
    /// `nonce_supported: false` (older devices). Off unless asked for.
    public let acceptsMissingNonceWhenUnsupported: Bool
    /// Google: the `hd` (hosted domain) a token must carry, when set.
    public let hostedDomain: String?
    /// Google: the `azp` (authorized party) a token must carry if it has one, when set.
    public let authorizedParty: String?
    /// Firebase: the project the audience must be (it is also the issuer's last path segment).
    public let project: String?

    /// Sign in with Apple identity tokens: RS256, `iss` `https://appleid.apple.com`, `exp` and `iat`
    /// required, `email_verified`/`is_private_email` as booleans or "true"/"false".
    public static func apple(acceptMissingNonceWhenUnsupported: Bool = false) -> Profile {
        Profile(
            kind: .apple, name: "apple", issuers: ["https://appleid.apple.com"], algorithms: [.rs256], keySource: .apple,
            acceptsMissingNonceWhenUnsupported: acceptMissingNonceWhenUnsupported, hostedDomain: nil, authorizedParty: nil,
            project: nil)
    }

    /// Apple server-to-server notifications: verified like identity tokens, with an `events` claim.
    public static let appleNotification = Profile(
        kind: .appleNotification, name: "apple-notification", issuers: ["https://appleid.apple.com"], algorithms: [.rs256],
        keySource: .apple, acceptsMissingNonceWhenUnsupported: false, hostedDomain: nil, authorizedParty: nil, project: nil)

    /// Firebase Authentication ID tokens for `project`: `iss` `https://securetoken.google.com/<project>`
    /// and `aud` the project, both from configuration, never from the token.
    public static func firebase(project: String) -> Profile {
        Profile(
            kind: .firebase, name: "firebase", issuers: ["https://securetoken.google.com/" + project], algorithms: [.rs256],
            keySource: .firebase, acceptsMissingNonceWhenUnsupported: false, hostedDomain: nil, authorizedParty: nil,
            project: project)
    }

    /// Google ID tokens: `iss` `https://accounts.google.com` or `accounts.google.com`; optional
    /// hosted-domain and authorized-party checks.
    public static func google(hostedDomain: String? = nil, authorizedParty: String? = nil) -> Profile {
        Profile(
            kind: .google, name: "google", issuers: ["https://accounts.google.com", "accounts.google.com"], algorithms: [.rs256],
            keySource: .google, acceptsMissingNonceWhenUnsupported: false, hostedDomain: hostedDomain,
            authorizedParty: authorizedParty, project: nil)
    }

    /// Any OpenID Connect issuer: the generic checks, with the profile machinery.
    public static func oidc(issuer: String, algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed) -> Profile {
        Profile(
            kind: .oidc, name: "oidc", issuers: [issuer], algorithms: algorithms, keySource: nil,
            acceptsMissingNonceWhenUnsupported: false, hostedDomain: nil, authorizedParty: nil, project: nil)
    }
}
