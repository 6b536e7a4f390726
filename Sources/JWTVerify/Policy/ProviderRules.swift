/// A provider's own rules, on top of the generic checks. Part of a ``VerificationPolicy``.
///
/// The rules read the payload the verifier already parsed (never a second parse) and run after
/// the generic claim checks, as the last step of the same walk; their failures use the stable
/// reasons (`claim_type`, `issued_in_future`, `hosted_domain_mismatch`, `audience_mismatch`).
public enum ProviderRules: Sendable, Hashable {
    /// No provider rules: only the generic checks.
    case none
    /// Sign in with Apple identity tokens (see ``VerificationPolicy/appleIdentityToken(audiences:acceptMissingNonceWhenUnsupported:nonce:)``).
    case appleIdentityToken(acceptMissingNonceWhenUnsupported: Bool)
    /// Apple server-to-server notifications (see ``VerificationPolicy/appleNotification(audiences:)``).
    case appleNotification
    /// Firebase Authentication ID tokens of a project (see ``VerificationPolicy/firebase(project:)``).
    case firebase(project: String)
    /// Google ID tokens (see ``VerificationPolicy/google(audiences:hostedDomain:authorizedParty:)``).
    case google(hostedDomain: String?, authorizedParty: String?)
    /// Generic OpenID Connect ID tokens (see ``VerificationPolicy/oidc(issuer:audiences:algorithms:)``).
    case oidc

    /// The name `--profile` spells these rules with (`nil` for ``none``).
    public var profileName: String? {
        switch self {
        case .none: nil
        case .appleIdentityToken: "apple"
        case .appleNotification: "apple-notification"
        case .firebase: "firebase"
        case .google: "google"
        case .oidc: "oidc"
        }
    }

    /// Whether a missing `nonce` is accepted when the token says `nonce_supported: false`.
    var acceptsMissingNonceWhenUnsupported: Bool {
        if case .appleIdentityToken(let accepts) = self { return accepts }
        return false
    }

    /// The provider's claims of `payload`, typed, or the type rule they break. Time rules wait for
    /// ``check(_:_:now:leeway:)``, which runs after the generic checks.
    func read<Object: JSONObjectReading>(_ payload: Object) -> Result<ProviderClaims, VerificationError> {
        if case .none = self { return .success(ProviderClaims()) }
        var claims = ProviderClaims.Fields()
        do throws(VerificationError) {
            func string(_ name: StaticString) throws(VerificationError) -> String? {
                guard let node = payload.member(name) else { return nil }
                guard let value = node.string else { throw VerificationError(.claimType, detail: "\(name) is not a string") }
                return value
            }
            func flag(_ name: StaticString) throws(VerificationError) -> Bool? {
                guard let node = payload.member(name) else { return nil }
                guard let value = node.lenientBool else {
                    throw VerificationError(.claimType, detail: "\(name) is neither a boolean nor \"true\"/\"false\"")
                }
                return value
            }
            func number(_ name: StaticString) throws(VerificationError) -> Double? {
                guard let node = payload.member(name) else { return nil }
                guard let value = node.number else { throw VerificationError(.claimType, detail: "\(name) is not a number") }
                return value
            }
            func requireIssuedAt() throws(VerificationError) {
                guard payload.member("iat") != nil else { throw VerificationError(.claimType, detail: "iat is missing") }
            }
            switch self {
            case .none:
                break
            case .appleIdentityToken:
                try requireIssuedAt()
                if payload.member("events") != nil {
                    throw VerificationError(.claimType, detail: "this is a server-to-server notification, not an identity token")
                }
                claims.email = try string("email")
                claims.transferSubject = try string("transfer_sub")
                claims.codeHash = try string("c_hash")
                claims.accessTokenHash = try string("at_hash")
                claims.organizationID = try string("org_id")
                claims.emailVerified = try flag("email_verified")
                claims.isPrivateEmail = try flag("is_private_email")
                claims.nonceSupported = try flag("nonce_supported")
                claims.authTime = try number("auth_time")
                if let status = payload.member("real_user_status") {
                    guard status.kind == .integer, let value = status.number, (0...2).contains(value) else {
                        throw VerificationError(.claimType, detail: "real_user_status is not 0, 1 or 2")
                    }
                    claims.realUserStatus = Int(value)
                }
            case .appleNotification:
                try requireIssuedAt()
                guard let events = payload.member("events")?.stringBytes else {
                    throw VerificationError(.claimType, detail: "events is missing or not a string: not a server-to-server notification")
                }
                claims.event = try AppleNotificationEvent.parse(events)
            case .firebase:
                try requireIssuedAt()
                guard let subject = payload.member("sub")?.string, !subject.isEmpty, subject.count <= 128 else {
                    throw VerificationError(.claimType, detail: "sub must be a non-empty string of at most 128 characters")
                }
                guard let authTime = payload.member("auth_time")?.number else {
                    throw VerificationError(.claimType, detail: "auth_time is missing or not a number")
                }
                claims.authTime = authTime
                claims.email = try string("email")
                claims.emailVerified = try flag("email_verified")
                if let firebase = payload.member("firebase") {
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
            case .google:
                claims.email = try string("email")
                claims.hostedDomain = try string("hd")
                claims.authorizedParty = try string("azp")
                claims.name = try string("name")
                claims.picture = try string("picture")
                claims.emailVerified = try flag("email_verified")
            case .oidc:
                claims.email = try string("email")
                claims.emailVerified = try flag("email_verified")
            }
        } catch {
            return .failure(error)
        }
        // Moved into the box, not copied (a copy costs a reference count per string).
        return .success(ProviderClaims(fields: exchange(&claims, with: ProviderClaims.Fields())))
    }

    /// The rules that compare claims with configuration or with the time, in a fixed order.
    func check(_ claims: ProviderClaims, now: Double, leeway: Double) -> VerificationError? {
        switch self {
        case .firebase:
            if let authTime = claims.authTime, authTime > now + leeway {
                return VerificationError(.issuedInFuture, detail: "auth_time \(Verifier.number(authTime)) is in the future")
            }
        case .google(let hostedDomain, let authorizedParty):
            if let hostedDomain, claims.hostedDomain != hostedDomain {
                return VerificationError(.hostedDomainMismatch, detail: "hd is not \(Verifier.quoted(hostedDomain))")
            }
            if let authorizedParty, let azp = claims.authorizedParty, azp != authorizedParty {
                return VerificationError(.audienceMismatch, detail: "azp is not \(Verifier.quoted(authorizedParty))")
            }
        default:
            break
        }
        return nil
    }
}
