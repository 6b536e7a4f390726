import JWTVerify
import JWTVerifyTooling

/// `POST /retention` (and `/retention/NAME`): the body Apple posts to a Retention Messaging
/// "Get Retention Message" URL, `{"signedPayload": "<JWS>"}`, received on an `app-store` route
/// and answered with the verified, typed realtime request (what message to show stays the
/// backend's choice):
///
/// - verified, and a realtime request: `200`, `{"valid": true, "claims": …}` as `verify` writes
///   them (`kind` `realtime_request`, `originalTransactionId`, `appAppleId`, `productId`,
///   `userLocale`, `requestIdentifier`, `signedDate`, `environment`);
/// - a JWS that fails, or verified App Store data of another kind (`claim_type`): `401`,
///   `{"valid": false, "reason", "detail"}` and `X-JWT-Reason`;
/// - a revocation answer unavailable (`revocation_unavailable`): `503` with `Retry-After`;
/// - a body that is not Apple's: `400`, `{"error": "body_not_realtime_request", "detail"}`.
enum RetentionAnswer {
    /// The stable code of a body that is not Apple's realtime request body.
    static let notRequestCode = "body_not_realtime_request"

    /// Runs `use` with the JWS of the body's `signedPayload` string (valid only inside `use`), or
    /// says why the body has none. Other members are ignored.
    static func withSignedPayload(_ body: UnsafeRawBufferPointer, _ use: (UnsafeRawBufferPointer) -> HTTPResponse)
        -> HTTPResponse
    {
        withoutActuallyEscaping(use) { use in
            switch JSONObjectParser.parse(body, Unwrapping(use: use)) {
            case .success(let response): response
            case .failure(.invalid): notRequest("the body is not JSON")
            case .failure(.notObject): notRequest("the body is not a JSON object")
            }
        }
    }

    private struct Unwrapping: JSONObjectConsumer {
        let use: (UnsafeRawBufferPointer) -> HTTPResponse
        func consume<Object: JSONObjectReading>(_ object: Object) -> HTTPResponse {
            guard let jws = object.member("signedPayload")?.stringBytes else {
                return RetentionAnswer.notRequest("the body has no signedPayload string")
            }
            return use(jws)
        }
    }

    /// The answer for a verdict under `rules`, and the reason it gives (`nil`: answered 200).
    static func answer(_ result: Result<VerifiedToken, VerificationError>, rules: ProviderRules) -> (
        HTTPResponse, VerificationError.Reason?
    ) {
        var result = result
        if case .success(let token) = result, let claims = token.provider(as: AppStoreClaims.self),
            claims.kind != .realtimeRequest
        {
            result = .failure(
                VerificationError(
                    .claimType,
                    detail: "the signed payload is App Store \(claims.kind.rawValue), not a realtime request"))
        }
        var text = OutputText()
        text.beginObject()
        text.key("valid")
        switch result {
        case .success(let token):
            text.bool(true)
            TokenRecordWriter.appendProviderClaims(VerificationOutcome(.success(token)), rules: rules, to: &text)
            text.endObject()
            text.newline()
            return (HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: text.bytes), nil)
        case .failure(let error):
            text.bool(false)
            text.member("reason", error.reason.rawValue)
            text.member("detail", error.detail)
            text.endObject()
            text.newline()
            let retryable = error.reason == .revocationUnavailable || error.reason == .keySetUnavailable
            var headers = [("Content-Type", "application/json"), ("X-JWT-Reason", error.reason.rawValue)]
            if retryable { headers.append(("Retry-After", "60")) }
            return (HTTPResponse(status: retryable ? 503 : 401, headers: headers, body: text.bytes), error.reason)
        }
    }

    /// `400` for a body that is not `{"signedPayload": "<JWS>"}`.
    static func notRequest(_ detail: String) -> HTTPResponse {
        var text = OutputText()
        text.beginObject()
        text.member("error", notRequestCode)
        text.member("detail", detail)
        text.endObject()
        text.newline()
        return HTTPResponse(status: 400, headers: [("Content-Type", "application/json")], body: text.bytes)
    }
}
