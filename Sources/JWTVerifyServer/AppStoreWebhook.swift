import JWTVerify

/// `POST /appstore` (and `/appstore/NAME`): an App Store Server Notifications V2 endpoint's body,
/// `{"signedPayload": "<JWS>"}` exactly as Apple posts it, verified by an `app-store` route, and
/// answered with the verdict:
///
/// - valid: `200`, `{"valid": true, "claims": {…}}` (the typed notification, nested transaction
///   and renewal info included);
/// - a rejected token: `401`, `{"valid": false, "reason", "detail"}` and `X-JWT-Reason`;
/// - no trustworthy revocation answer or no keys (`revocation_unavailable`, `jwks_unavailable`):
///   `503` with `Retry-After`, so that Apple sends the notification again;
/// - a body that is not such an object: `400`.
enum AppStoreWebhook {
    /// Why a body holds no signed payload.
    struct BadBody: Error {
        let why: String
    }

    /// The signed payload of a notification body, or why there is none.
    static func signedPayload(_ body: [UInt8]) -> Result<[UInt8], BadBody> {
        guard case .success(let document) = JSONDocument.parse(body) else { return .failure(BadBody(why: "the body is not JSON")) }
        return document.withRoot { root -> Result<[UInt8], BadBody> in
            guard root.kind == .object else { return .failure(BadBody(why: "the body is not a JSON object")) }
            guard let payload = root.member("signedPayload")?.stringBytes else {
                return .failure(BadBody(why: "the body has no signedPayload string"))
            }
            return .success(Array(payload))
        }
    }

    /// The answer for a verdict.
    static func answer(_ result: Result<VerifiedToken, VerificationError>) -> HTTPResponse {
        var text = OutputText()
        text.beginObject()
        switch result {
        case .success(let token):
            text.key("valid")
            text.bool(true)
            text.key("claims")
            text.append(.object(token.provider.appStore?.members ?? [:]))
            text.endObject()
            text.newline()
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(text.string.utf8))
        case .failure(let error):
            text.key("valid")
            text.bool(false)
            text.key("reason")
            text.string(error.reason.rawValue)
            text.key("detail")
            text.string(error.detail)
            text.endObject()
            text.newline()
            let retry = error.reason == .revocationUnavailable || error.reason == .keySetUnavailable
            var headers = [("Content-Type", "application/json"), ("X-JWT-Reason", error.reason.rawValue)]
            if retry { headers.append(("Retry-After", "60")) }
            return HTTPResponse(status: retry ? 503 : 401, headers: headers, body: Array(text.string.utf8))
        }
    }

    /// A `400` for a body that carries no signed payload.
    static func badBody(_ why: String) -> HTTPResponse {
        var text = OutputText()
        text.beginObject()
        text.key("error")
        text.string("body_not_notification")
        text.key("detail")
        text.string(why)
        text.endObject()
        text.newline()
        return HTTPResponse(status: 400, headers: [("Content-Type", "application/json")], body: Array(text.string.utf8))
    }
}
