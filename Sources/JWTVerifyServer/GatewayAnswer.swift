package import JWTVerify

/// What `serve`'s `/auth` answers a gateway (nginx `auth_request`, Caddy `forward_auth`, Traefik
/// `ForwardAuth`, Envoy `ext_authz`): a status a gateway understands, and headers.
///
/// - valid: `200` with every one of `X-JWT-Sub`, `-Iss`, `-Aud`, `-Exp`, `-Kid`, `-Alg` and each
///   configured claim header, empty where the token has no such claim, so that a gateway copying
///   them overwrites whatever the client sent under those names;
/// - no token: `401` with a bare `WWW-Authenticate: Bearer` (RFC 6750 §3.1: no `error` when the
///   request carried no credentials);
/// - more than one credential (two `Authorization` headers, or a token in more than one of the
///   header, the route's token header and its cookie): `400` with
///   `WWW-Authenticate: Bearer error="invalid_request"` (RFC 6750 §3.1), never one of them picked;
/// - a genuine token for another service (`audience_mismatch`, `hosted_domain_mismatch`): `403`;
/// - a genuine token without a privilege the route requires (`insufficient_scope`): `403` with
///   `WWW-Authenticate: Bearer error="insufficient_scope", scope="<the required scopes>"`
///   (RFC 6750 §3.1), as the reason's entry declares (``ReasonEntry/Answer/challenged(error:)``);
/// - a DPoP proof missing, invalid, for another request or replayed (`dpop_*`): `401` with
///   `WWW-Authenticate: DPoP error="invalid_dpop_proof"` (`invalid_token` for `dpop_missing`);
/// - no usable key set (`jwks_unavailable`): `503`;
/// - any other rejection: `401` with `WWW-Authenticate: Bearer error="invalid_token",
///   error_description="<reason>"`.
///
/// Every refusal but a missing token carries `X-JWT-Reason`: the library's reason code, or
/// ``invalidRequest``. Every answer carries `Cache-Control` (``CacheRule``).
package struct GatewayAnswer: Equatable {
    /// 200, 400, 401, 403 or 503.
    package var status: Int
    /// Response headers, in order.
    package var headers: [(String, String)]

    /// An answer as given.
    package init(status: Int, headers: [(String, String)]) {
        self.status = status
        self.headers = headers
    }

    /// Same status and the same headers in the same order.
    package static func == (a: GatewayAnswer, b: GatewayAnswer) -> Bool {
        a.status == b.status && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
    }

    /// A claim copied into a response header (`--claim-header PATH=Header-Name`).
    package struct ClaimHeader: Sendable, Equatable {
        /// The claim copied: a payload member, or a dotted path into nested objects.
        package let claim: ClaimPath
        /// The response header it goes to.
        package let header: String

        /// A mapping as given (the header name is not checked).
        package init(claim: ClaimPath, header: String) {
            self.claim = claim
            self.header = header
        }

        /// Parses `PATH=Header-Name` (`realm_access.roles=X-Roles`; see ``ClaimPath`` for the
        /// dotted form); the header name must be an RFC 9110 token, so the last `=` ends the path.
        package init?(parsing text: String) {
            guard let equals = text.utf8.lastIndex(of: UInt8(ascii: "=")),
                let claim = ClaimPath(parsing: String(text[..<equals]))
            else { return nil }
            let header = String(text[text.index(after: equals)...])
            guard !header.isEmpty, header.utf8.allSatisfy(Self.isTokenByte) else { return nil }
            self.init(claim: claim, header: header)
        }

        private static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// `X-JWT-Reason` of an ambiguous request: an HTTP-level refusal, not a token verdict (no
    /// token was verified), so not a ``VerificationError/Reason``.
    package static let invalidRequest = "invalid_request"

    /// The answer when the request carried no token; `realm` when configured.
    package static func noToken(realm: String?) -> GatewayAnswer {
        let challenge = realm.map { "Bearer realm=\"\(headerSafe($0, quoted: true))\"" } ?? "Bearer"
        return GatewayAnswer(
            status: 401, headers: [("WWW-Authenticate", challenge), (CacheRule.header, CacheRule.noStore)])
    }

    /// How a refusal's `WWW-Authenticate` challenge is written: RFC 6750's `Bearer`, or for a
    /// request that presented its token as `Authorization: DPoP` on a route that takes proofs,
    /// RFC 9449's `DPoP` with the `algs` the route accepts for proofs.
    package enum Scheme: Equatable, Sendable {
        /// `Bearer` (RFC 6750 §3); on a route that takes DPoP proofs, their algorithms, for the
        /// `DPoP` challenge of a proof's refusal (`dpop_missing` for a bound token sent as Bearer).
        case bearer(proofAlgorithms: String?)
        /// `DPoP` (RFC 9449 §7.1) with `algs`, the proof algorithms, space-separated.
        case dpop(algs: String)

        /// A Bearer request on a route without proofs.
        package static let bearer = Scheme.bearer(proofAlgorithms: nil)

        /// The scheme's name and, for DPoP, the `algs` parameter to append.
        var parts: (name: String, algs: String) {
            switch self {
            case .bearer: ("Bearer", "")
            case .dpop(let algs): ("DPoP", ", algs=\"\(algs)\"")
            }
        }

        /// The `algs` parameter of a DPoP challenge, when the route takes proofs.
        var proofAlgs: String {
            switch self {
            case .bearer(let algs?), .dpop(let algs): ", algs=\"\(algs)\""
            case .bearer(nil): ""
            }
        }
    }

    /// The answer for a DPoP request serve cannot check (`400 invalid_request`): not exactly one
    /// `DPoP` header, or the forwarded request missing or unusable (`X-Forwarded-*`); `detail`
    /// says which, in the challenge's `error_description`.
    package static func invalidDPoPRequest(_ detail: String, realm: String?, algs: String) -> GatewayAnswer {
        challenge(
            400, "DPoP", realm: realm,
            "error=\"\(invalidRequest)\", error_description=\"\(headerSafe(detail, quoted: true))\", algs=\"\(algs)\"",
            reason: invalidRequest)
    }

    /// The answer when the request carried more than one credential: `400 invalid_request`.
    package static func ambiguous(realm: String?) -> GatewayAnswer {
        challenge(400, "Bearer", realm: realm, "error=\"\(invalidRequest)\"", reason: invalidRequest)
    }

    /// A refusal with its challenge: `WWW-Authenticate: <scheme> [realm="…", ]<parameters>`,
    /// `X-JWT-Reason: <reason>` and `Cache-Control: no-store`.
    private static func challenge(
        _ status: Int, _ scheme: String, realm: String?, _ parameters: String, reason: String
    ) -> GatewayAnswer {
        let realmPart = realm.map { "realm=\"\(headerSafe($0, quoted: true))\", " } ?? ""
        return GatewayAnswer(
            status: status,
            headers: [
                ("WWW-Authenticate", "\(scheme) \(realmPart)\(parameters)"), ("X-JWT-Reason", reason),
                (CacheRule.header, CacheRule.noStore),
            ])
    }

    /// The answer for a verdict. A valid token's answer may be kept for `cacheMaxAge` seconds, and
    /// never past its `exp` judged at `now` (``CacheRule``); `nil`: `no-store`. A challenge names
    /// `scope` (the route's rules' ``ProviderRules/challengeScope``).
    package static func verdict(
        _ result: Result<VerifiedToken, VerificationError>, claimHeaders: [ClaimHeader], realm: String?,
        cacheMaxAge: Int? = nil, now: Double = 0, scope: [String] = [], scheme: Scheme = .bearer
    ) -> GatewayAnswer {
        switch result {
        case .success(let token): return valid(token, claimHeaders: claimHeaders, cacheMaxAge: cacheMaxAge, now: now)
        case .failure(let error): return rejected(error.reason, realm: realm, scope: scope, scheme: scheme)
        }
    }

    /// The reasons not answered 401, as their entries declare (``ReasonEntry/answer``).
    private static let answers = ReasonEntry.all.filter { $0.answer != .unauthorized }

    /// A rejection with `reason`: as its entry declares, 403 for a genuine token meant for another
    /// service, 403 with a Bearer challenge (naming `scope`, when not empty) for one that lacks a
    /// privilege, 503 with `Retry-After` while there is no verdict, 401 otherwise; a DPoP proof's
    /// refusal with a `DPoP` challenge, and any 401 of a DPoP request in `scheme` with its `algs`.
    package static func rejected(
        _ reason: VerificationError.Reason, realm: String?, scope: [String] = [], scheme: Scheme = .bearer
    ) -> GatewayAnswer {
        let code = reason.rawValue
        switch answers.first(where: { $0.reason == reason })?.answer ?? .unauthorized {
        case .forbidden:
            return GatewayAnswer(status: 403, headers: [("X-JWT-Reason", code), (CacheRule.header, CacheRule.noStore)])
        case .challenged(let error):
            let scopePart =
                scope.isEmpty ? "" : ", scope=\"\(headerSafe(scope.joined(separator: " "), quoted: true))\""
            return challenge(403, "Bearer", realm: realm, "error=\"\(error)\"\(scopePart)", reason: code)
        case .proofChallenged(let error):
            return challenge(401, "DPoP", realm: realm, "error=\"\(error)\"\(scheme.proofAlgs)", reason: code)
        case .unavailable:
            return GatewayAnswer(
                status: 503,
                headers: [("X-JWT-Reason", code), ("Retry-After", "5"), (CacheRule.header, CacheRule.noStore)])
        case .unauthorized:
            return challenge(
                401, scheme.parts.name, realm: realm,
                "error=\"invalid_token\", error_description=\"\(code)\"\(scheme.parts.algs)", reason: code)
        }
    }

    private static func valid(
        _ token: VerifiedToken, claimHeaders: [ClaimHeader], cacheMaxAge: Int?, now: Double
    ) -> GatewayAnswer {
        let claims = token.claims
        var headers: [(String, String)] = []
        headers.reserveCapacity(7 + claimHeaders.count)
        // Every header, empty where the claim is absent: a gateway copying it then overwrites the
        // client's header of that name instead of letting it through.
        func add(_ name: String, _ value: String?) {
            headers.append((name, value.map { headerSafe($0, quoted: false) } ?? ""))
        }
        add("X-JWT-Sub", claims.subject)
        add("X-JWT-Iss", claims.issuer)
        add("X-JWT-Aud", claims.audience?.joined(separator: ","))
        add("X-JWT-Exp", claims.expiresAt.map(Self.number))
        add("X-JWT-Kid", token.keyID)
        add("X-JWT-Alg", token.algorithm.name)
        if token.hasCapturedClaims {
            // Read by the verifier in its own pass (the route's policy keeps these claims, in order).
            for (index, mapping) in claimHeaders.enumerated() {
                add(mapping.header, token.capturedClaim(at: index).map(Self.text))
            }
        } else if !claimHeaders.isEmpty {
            let all = token.allClaims
            for mapping in claimHeaders { add(mapping.header, mapping.claim.value(in: all).map(Self.text)) }
        }
        let cache =
            cacheMaxAge.map { CacheRule.value(maxAge: $0, expiresAt: claims.expiresAt, now: now) } ?? CacheRule.noStore
        headers.append((CacheRule.header, cache))
        return GatewayAnswer(status: 200, headers: headers)
    }

    /// A claim's value as header text: strings as they are, numbers and literals as JSON writes
    /// them, arrays as their elements joined with commas, objects as compact JSON.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): string
        case .array(let elements): elements.map(text).joined(separator: ",")
        default: value.description
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// `value` with every byte a header may not carry percent-encoded: controls (CR and LF among
    /// them), DEL, non-ASCII octets, and `%` itself; inside a quoted-string also `"` and `\`.
    package static func headerSafe(_ value: String, quoted: Bool) -> String {
        var needs = false
        for byte in value.utf8
        where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") || (quoted && (byte == 0x22 || byte == 0x5C)) {
            needs = true
            break
        }
        guard needs else { return value }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count * 3)
        for byte in value.utf8 {
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") || (quoted && (byte == 0x22 || byte == 0x5C)) {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
