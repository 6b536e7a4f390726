/// Apple posts server-to-server notifications as `{"payload": "<JWS>"}`; under the notification
/// rules the verifier accepts that body in place of the JWS.
enum NotificationBody {
    /// Runs `evaluate` on the JWS inside `body`, or returns `nil` when `body` is not such an object.
    static func evaluate(
        _ body: UnsafeRawBufferPointer, _ evaluate: (UnsafeRawBufferPointer) -> VerificationOutcome
    ) -> VerificationOutcome? {
        withoutActuallyEscaping(evaluate) { evaluate in
            switch JSONObjectParser.parse(body, Unwrapping(evaluate: evaluate)) {
            case .success(let outcome): outcome
            case .failure: nil
            }
        }
    }

    private struct Unwrapping: JSONObjectConsumer {
        let evaluate: (UnsafeRawBufferPointer) -> VerificationOutcome
        func consume<Object: JSONObjectReading>(_ object: Object) -> VerificationOutcome? {
            object.member("payload")?.stringBytes.map(evaluate)
        }
    }
}
