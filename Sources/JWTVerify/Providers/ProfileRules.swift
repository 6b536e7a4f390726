/// Each profile's own rules, applied to a generically verified token.
enum ProfileRules {
    static func apply(
        _ profile: Profile, to token: VerifiedToken, now: Double, leeway: Double
    ) throws(VerificationError) -> ([String: JSONValue], AppleNotificationEvent?) {
        let all = token.allClaims
        var typed: [String: JSONValue] = [:]

        func string(_ name: String) throws(VerificationError) {
            guard let value = all[name] else { return }
            guard case .string = value else { throw VerificationError(.claimType, detail: "\(name) is not a string") }
            typed[name] = value
        }
        func number(_ name: String) throws(VerificationError) {
            guard let value = all[name] else { return }
            guard let number = value.doubleValue else { throw VerificationError(.claimType, detail: "\(name) is not a number") }
            typed[name] = number == number.rounded() && abs(number) < 9e15 ? .integer(Int64(number)) : .number(number)
        }
        func boolean(_ name: String) throws(VerificationError) {
            guard let value = all[name] else { return }
            guard let flag = ProfileVerifier.boolean(value) else {
                throw VerificationError(.claimType, detail: "\(name) is neither a boolean nor \"true\"/\"false\"")
            }
            typed[name] = .bool(flag)
        }
        func requireIssuedAt() throws(VerificationError) {
            guard token.claims.issuedAt != nil else { throw VerificationError(.claimType, detail: "iat is missing") }
        }

        switch profile.kind {
        case .apple:
            try requireIssuedAt()
            if all["events"] != nil {
                throw VerificationError(.claimType, detail: "this is a server-to-server notification, not an identity token")
            }
            for name in ["sub", "email", "transfer_sub", "c_hash", "at_hash", "org_id", "nonce"] { try string(name) }
            for name in ["email_verified", "is_private_email", "nonce_supported"] { try boolean(name) }
            try number("auth_time")
            if let status = all["real_user_status"] {
                guard case .integer(let value) = status, (0...2).contains(value) else {
                    throw VerificationError(.claimType, detail: "real_user_status is not 0, 1 or 2")
                }
                typed["real_user_status"] = status
            }
            return (typed, nil)

        case .appleNotification:
            try requireIssuedAt()
            guard case .string(let text)? = all["events"] else {
                throw VerificationError(.claimType, detail: "events is missing or not a string: not a server-to-server notification")
            }
            guard case .success(let document) = JSONDocument.parse(Array(text.utf8)),
                case .object(let members) = document.withRoot({ $0.value }), case .string(let type)? = members["type"]
            else {
                throw VerificationError(.claimType, detail: "events is not a JSON object with a type")
            }
            let isPrivate = members["is_private_email"]
            if isPrivate != nil && ProfileVerifier.boolean(isPrivate) == nil {
                throw VerificationError(.claimType, detail: "events.is_private_email is neither a boolean nor \"true\"/\"false\"")
            }
            let event = AppleNotificationEvent(
                type: type, subject: members["sub"]?.stringValue, email: members["email"]?.stringValue,
                isPrivateEmail: ProfileVerifier.boolean(isPrivate), eventTime: members["event_time"]?.doubleValue)
            try string("sub")
            return (typed, event)

        case .firebase:
            try requireIssuedAt()
            guard case .string(let subject)? = all["sub"], !subject.isEmpty, subject.count <= 128 else {
                throw VerificationError(.claimType, detail: "sub must be a non-empty string of at most 128 characters")
            }
            guard let authTime = all["auth_time"]?.doubleValue else {
                throw VerificationError(.claimType, detail: "auth_time is missing or not a number")
            }
            if authTime > now + leeway {
                throw VerificationError(.issuedInFuture, detail: "auth_time \(Verifier.number(authTime)) is in the future")
            }
            typed["uid"] = .string(subject)
            typed["sub"] = .string(subject)
            try string("email")
            try boolean("email_verified")
            try number("auth_time")
            if let firebase = all["firebase"] {
                guard case .object(let members) = firebase else { throw VerificationError(.claimType, detail: "firebase is not an object") }
                if let provider = members["sign_in_provider"] {
                    guard case .string = provider else {
                        throw VerificationError(.claimType, detail: "firebase.sign_in_provider is not a string")
                    }
                    typed["firebase.sign_in_provider"] = provider
                }
                if let identities = members["identities"] {
                    guard case .object = identities else { throw VerificationError(.claimType, detail: "firebase.identities is not an object") }
                    typed["firebase.identities"] = identities
                }
            }
            return (typed, nil)

        case .google:
            for name in ["sub", "email", "hd", "azp", "name", "picture"] { try string(name) }
            try boolean("email_verified")
            if let domain = profile.hostedDomain, typed["hd"] != .string(domain) {
                throw VerificationError(.hostedDomainMismatch, detail: "hd is not \(Verifier.quoted(domain))")
            }
            if let party = profile.authorizedParty, let azp = typed["azp"], azp != .string(party) {
                throw VerificationError(.audienceMismatch, detail: "azp is not \(Verifier.quoted(party))")
            }
            return (typed, nil)

        case .oidc:
            for name in ["sub", "email"] { try string(name) }
            try boolean("email_verified")
            return (typed, nil)
        }
    }
}
