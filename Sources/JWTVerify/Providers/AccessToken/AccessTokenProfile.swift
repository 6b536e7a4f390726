/// OAuth 2.0 access tokens in the JWT profile of RFC 9068 (`--profile access-token`): keys from the
/// caller.
package struct AccessTokenProfile: ProviderProfile {
    package typealias Claims = AccessTokenClaims
    package static let name = "access-token"
    package static let documentation = ProviderDocumentation(
        title: "OAuth 2.0 access tokens (RFC 9068)",
        preset: "accessToken(issuer:audiences:requiredScopes:algorithms:)",
        example: "`.accessToken(issuer: \"https://auth.example.com\", audiences: […], requiredScopes: [\"read\"])`",
        commandLine: "`--profile access-token --issuer … --audience … --jwks URL [--scope S]`",
        keys: "yours")
    package static let keySet: (preset: String, source: KeySetSource)? = nil
    package static let settings: [ProfileSetting] = [.issuer, .audiences, .scope, .dpop]
    package static func requiredSettings(forService: Bool) -> Set<ProfileSetting> { [.issuer] }
    package static func policy(_ settings: VerificationPolicy.ProfileSettings) -> VerificationPolicy {
        .accessToken(issuer: settings.issuer ?? "", audiences: settings.audiences, requiredScopes: settings.scopes)
            .dpop(DPoPPolicy(mode: settings.dpop ?? .off))
    }
    package static let reasons = [
        ReasonEntry(
            .insufficientScope, "an access token's `scope` lacks a scope the policy requires",
            answer: .challenged(error: "insufficient_scope"))
    ]

    /// The scopes the token's `scope` must list, every one.
    let requiredScopes: [String]

    /// `typ` `at+jwt` (or `application/at+jwt`) required: an ID token is never taken for an
    /// access token (RFC 9068 §4).
    package var headerRequirements: HeaderRequirements { HeaderRequirements(type: true, tokenType: .accessToken) }

    /// The scopes a refusal's challenge names: the required ones.
    package var challengeScope: [String] { requiredScopes }

    package func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AccessTokenClaims {
        try AccessTokenClaims.read(reader)
    }

    /// Every required scope listed in `scope`.
    package func check(_ claims: AccessTokenClaims, now: Double, leeway: Double) -> VerificationError? {
        guard !requiredScopes.isEmpty else { return nil }
        let missing = claims.missing(requiredScopes)
        guard !missing.isEmpty else { return nil }
        return VerificationError(
            .insufficientScope,
            detail: "scope lacks the required " + missing.map(Verifier.quoted).joined(separator: ", "))
    }
}

extension TokenType {
    /// `at+jwt` (RFC 9068 §2.1): an access token; a token typed `JWT`, or untyped, is an ID token.
    package static let accessToken = TokenType(
        "at+jwt", spelling: "at+jwt", untypedRefusal: "an ID token, not an access token")
}

extension VerificationError.Reason {
    /// Access-token profile: the token's `scope` lacks a scope the policy requires.
    public static let insufficientScope = VerificationError.Reason(rawValue: "insufficient_scope")
}

extension VerificationPolicy {
    /// OAuth 2.0 access tokens in the JWT profile of RFC 9068: header `typ` `at+jwt` (or
    /// `application/at+jwt`, in any letter case) required, so an ID token is refused
    /// (`header_invalid`); `iss` exactly `issuer`, `aud` one of `audiences`; `exp`, `aud`, `sub`,
    /// `client_id`, `iat` and `jti` required (else `claim_type`); `scope` a space-delimited string,
    /// `cnf` an object (``AccessTokenClaims``). Keys are the caller's (the issuer's JWKS).
    ///
    /// - Parameters:
    ///   - issuer: the authorization server's issuer identifier, compared exactly.
    ///   - audiences: the accepted `aud` values: this resource server's identifiers.
    ///   - requiredScopes: scopes the token's `scope` must list, every one (else `insufficient_scope`).
    ///   - algorithms: the `alg` allow-list; RS256 and ES256 by default.
    public static func accessToken(
        issuer: String, audiences: [String], requiredScopes: [String] = [],
        algorithms: Set<SignatureAlgorithm> = SignatureAlgorithm.defaultAllowed
    ) -> VerificationPolicy {
        VerificationPolicy(
            issuers: [issuer], audiences: audiences, algorithms: algorithms,
            rules: .accessToken(requiredScopes: requiredScopes))
    }
}

extension ProviderRules {
    /// RFC 9068 access tokens (see
    /// ``VerificationPolicy/accessToken(issuer:audiences:requiredScopes:algorithms:)``), with the
    /// scopes each must list.
    public static func accessToken(requiredScopes: [String] = []) -> ProviderRules {
        ProviderRules(AccessTokenProfile(requiredScopes: requiredScopes))
    }
}
