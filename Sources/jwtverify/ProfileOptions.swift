import JWTVerify

/// `--profile` and the flags that go with it, shared by `verify` and `audit`.
struct ProfileOptions {
    var name: String?
    var project: String?
    var hostedDomain: String?
    var authorizedParty: String?
    var acceptMissingNonceWhenUnsupported = false

    static let help = """
          --profile P              apple | apple-notification | firebase | google | oidc: fills in the
                                   issuer, algorithms and default key set (--jwks overrides it), adds
                                   the provider's rules, and a typed "claims" object to the output.
          --project ID             Firebase project (instead of --issuer/--audience).
          --hosted-domain D        Google: required "hd".
          --authorized-party A     Google: required "azp", when the token has one.
          --accept-missing-nonce-when-unsupported
                                   Apple: accept a token without nonce if it says nonce_supported false.
        """

    /// Consumes the profile flags; false for other options.
    mutating func parse(_ name: String, inline: String?, _ arguments: inout Arguments) throws(CommandFailure) -> Bool {
        switch name {
        case "--profile":
            let value = try arguments.value(for: name, inline: inline)
            guard ["apple", "apple-notification", "firebase", "google", "oidc"].contains(value) else {
                throw .usage("--profile takes apple, apple-notification, firebase, google or oidc")
            }
            self.name = value
        case "--project": project = try arguments.value(for: name, inline: inline)
        case "--hosted-domain": hostedDomain = try arguments.value(for: name, inline: inline)
        case "--authorized-party": authorizedParty = try arguments.value(for: name, inline: inline)
        case "--accept-missing-nonce-when-unsupported": acceptMissingNonceWhenUnsupported = true
        default: return false
        }
        return true
    }

    /// The profile, checked against the other flags (`issuer`: the --issuer given, if any).
    func profile(issuer: String?, audiences: [String]) throws(CommandFailure) -> Profile? {
        guard let name else {
            if project != nil || hostedDomain != nil || authorizedParty != nil { throw .usage("--project, --hosted-domain and --authorized-party need --profile") }
            return nil
        }
        if name != "oidc" && issuer != nil { throw .usage("--profile \(name) sets the issuer; drop --issuer") }
        if name != "firebase" && project != nil { throw .usage("--project goes with --profile firebase") }
        switch name {
        case "apple": return .apple(acceptMissingNonceWhenUnsupported: acceptMissingNonceWhenUnsupported)
        case "apple-notification": return .appleNotification
        case "firebase":
            guard let project else { throw .usage("--profile firebase needs --project") }
            if !audiences.isEmpty { throw .usage("--profile firebase takes --project, not --audience") }
            return .firebase(project: project)
        case "google": return .google(hostedDomain: hostedDomain, authorizedParty: authorizedParty)
        default:
            guard let issuer else { throw .usage("--profile oidc needs --issuer") }
            return .oidc(issuer: issuer)
        }
    }
}
