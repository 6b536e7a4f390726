import JWTVerify
import JWTVerifyTooling

/// `POST /notifications` (and `/notifications/NAME`; `/appstore` is an alias): the body Apple
/// posts, `{"payload": "<JWS>"}` for Sign in with Apple or `{"signedPayload": "<JWS>"}` for the
/// App Store, received on a route whose profile is `apple-notification` or `app-store`, and
/// answered with the verdict:
///
/// - verified: `200`, `{"valid": true, "duplicate": …, "id": …}` and the typed notification as
///   `verify` writes it (`event` for Sign in with Apple, `claims` for the App Store). A duplicate
///   (the same `jti` or `notificationUUID` again) is answered 200 too, so Apple stops retrying;
/// - a JWS that fails: `401`, `{"valid": false, "reason", "detail"}` and `X-JWT-Reason`;
/// - keys or a revocation answer unavailable (`jwks_unavailable`, `revocation_unavailable`):
///   `503` with `Retry-After`, so that Apple delivers it again;
/// - a body that is not Apple's envelope: `400`, `{"error": "body_not_notification", "detail"}`;
/// - a verified notification whose ID the route's window file (`--state-dir`) could not record,
///   or a window file that could not be loaded: `503`, `{"error": "state_unwritable", "detail"}`
///   (or the load's code) with `Retry-After`, never 200, so that Apple delivers it again. The
///   detail does not name the file.
enum NotificationAnswer {
    /// The answer for `result`, under `rules`.
    static func answer(_ result: Result<ReceivedNotification, NotificationRejection>, rules: ProviderRules)
        -> HTTPResponse
    {
        var text = OutputText()
        text.beginObject()
        switch result {
        case .success(let notification):
            text.key("valid")
            text.bool(true)
            text.key("duplicate")
            text.bool(notification.isDuplicate)
            text.member("id", notification.id)
            TokenRecordWriter.appendProviderClaims(
                VerificationOutcome(.success(notification.token)), rules: rules, to: &text)
            text.endObject()
            text.newline()
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: text.bytes)
        case .failure(let rejection) where rejection.windowFileError != nil:
            return notRecorded(rejection.windowFileError!)
        case .failure(let rejection) where rejection.isNotEnvelope:
            return refusal(400, text, ("error", rejection.code), ("detail", rejection.detail), headers: [])
        case .failure(let rejection):
            text.key("valid")
            text.bool(false)
            var headers = [("X-JWT-Reason", rejection.code)]
            if rejection.isRetryable { headers.append(("Retry-After", "60")) }
            return refusal(
                rejection.isRetryable ? 503 : 401, text, ("reason", rejection.code), ("detail", rejection.detail),
                headers: headers)
        }
    }

    /// `503` for a notification whose ID could not be recorded in (or whose window could not be
    /// loaded from) the state directory.
    static func notRecorded(_ error: NotificationWindowFileError) -> HTTPResponse {
        var text = OutputText()
        text.beginObject()
        let detail = "the notification's ID could not be recorded in the state directory; deliver it again"
        let headers = [("Retry-After", "60")]
        return refusal(503, text, ("error", error.reason.rawValue), ("detail", detail), headers: headers)
    }

    /// A refusal: the object `text` began, closed after `code` and `detail`, with `headers`.
    private static func refusal(
        _ status: Int, _ text: consuming OutputText, _ code: (StaticString, String), _ detail: (StaticString, String),
        headers: [(String, String)]
    ) -> HTTPResponse {
        text.member(code.0, code.1)
        text.member(detail.0, detail.1)
        text.endObject()
        text.newline()
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: text.bytes)
    }
}
