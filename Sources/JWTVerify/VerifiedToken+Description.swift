/// How a verified token prints: what verified it and its claims, never the token itself.
///
/// `print(token)` and `"\(token)"` show the algorithm, the `kid`, the registered claims and the
/// provider's typed claims as compact JSON (members sorted by name):
///
/// ```text
/// VerifiedToken(alg: RS256, kid: "W6WcOKB6X1", claims: {"aud":"com.example.app",
///   "exp":1767222000,"iat":1767221400,"iss":"https://appleid.apple.com","sub":"001234.abc"},
///   provider: {"email":"user@example.com","email_verified":true})
/// ```
///
/// (on one line). `debugPrint(token)` and `String(reflecting:)` add `payload:`, every claim of the
/// signed payload. Neither shows the compact token, its base64url segments or its signature: a
/// verified token does not keep them.
extension VerifiedToken: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The algorithm, `kid`, registered claims and provider claims.
    public var description: String {
        "VerifiedToken(" + summaryFields + ")"
    }

    /// ``description``'s fields and `payload:`, every claim of the signed payload.
    public var debugDescription: String {
        "VerifiedToken(" + summaryFields + ", payload: " + JSONValue.object(allClaims).description + ")"
    }

    /// `dump(token)`: the algorithm, `kid`, registered claims and provider claims as children.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "algorithm": algorithm.name, "keyID": keyID as Any, "claims": registeredClaimsJSON,
                "provider": JSONValue.object(provider.members),
            ],
            displayStyle: .struct)
    }

    /// `alg: …, kid: …, claims: {…}, provider: {…}`.
    private var summaryFields: String {
        let kid = keyID.map { String(reflecting: $0) } ?? "nil"
        return "alg: \(algorithm.name), kid: \(kid), claims: \(registeredClaimsJSON), provider: "
            + JSONValue.object(provider.members).description
    }

    /// The registered claims under their JWT names (`aud` a string or a list, as the token wrote it).
    private var registeredClaimsJSON: JSONValue {
        let claims = self.claims
        var members: [String: JSONValue] = [:]
        func date(_ value: Double?) -> JSONValue? {
            guard let value else { return nil }
            return value == value.rounded(.towardZero) && abs(value) < 9.2e18 ? .integer(Int64(value)) : .number(value)
        }
        members["iss"] = claims.issuer.map(JSONValue.string)
        members["sub"] = claims.subject.map(JSONValue.string)
        if let audience = claims.audience {
            members["aud"] =
                claims.audienceIsList ? .array(audience.map(JSONValue.string)) : audience.first.map(JSONValue.string)
        }
        members["exp"] = date(claims.expiresAt)
        members["nbf"] = date(claims.notBefore)
        members["iat"] = date(claims.issuedAt)
        members["nonce"] = claims.nonce.map(JSONValue.string)
        return .object(members)
    }
}
