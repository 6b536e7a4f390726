/// Apple posts server-to-server notifications as `{"payload": "<JWS>"}`; under the notification
/// rules the verifier accepts that body in place of the JWS.
enum NotificationBody {
    /// Runs `evaluate` on the JWS inside `body`, or returns `nil` when `body` is not such an object.
    static func evaluate(
        _ body: UnsafeRawBufferPointer, _ evaluate: (UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError>
    ) -> Result<VerifiedToken, VerificationError>? {
        withoutActuallyEscaping(evaluate) { evaluate in
            switch JSONObjectParser.parse(body, Unwrapping(evaluate: evaluate)) {
            case .success(let outcome): outcome
            case .failure: nil
            }
        }
    }

    private struct Unwrapping: JSONObjectConsumer {
        let evaluate: (UnsafeRawBufferPointer) -> Result<VerifiedToken, VerificationError>
        func consume<Object: JSONObjectReading>(_ object: Object) -> Result<VerifiedToken, VerificationError>? {
            object.member("payload")?.stringBytes.map(evaluate)
        }
    }
}
