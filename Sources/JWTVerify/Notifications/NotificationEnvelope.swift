/// Apple's notification envelopes, read in one place: Sign in with Apple posts
/// `{"payload": "<JWS>"}`, the App Store posts `{"signedPayload": "<JWS>"}`. Other members are
/// ignored; an object with both, or with neither as a string, is not an envelope.
package enum NotificationEnvelope {
    /// The members that carry the JWS, as Apple names them.
    package static let memberNames: [StaticString] = ["payload", "signedPayload"]

    /// Why a body is not an envelope (`body_not_notification`).
    package struct Problem: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the body.
        package let description: String
    }

    /// The stable code of a body that is not an envelope.
    package static let notEnvelopeCode = "body_not_notification"

    /// Runs `use` with the JWS inside `body` (valid only inside `use`), or says why there is none.
    package static func withSignedPayload<R>(_ body: UnsafeRawBufferPointer, _ use: (UnsafeRawBufferPointer) -> R)
        -> Result<R, Problem>
    {
        withoutActuallyEscaping(use) { use in
            switch JSONObjectParser.parse(body, Unwrapping(use: use)) {
            case .success(let outcome): outcome
            case .failure(.invalid): .failure(Problem(description: "the body is not JSON"))
            case .failure(.notObject): .failure(Problem(description: "the body is not a JSON object"))
            }
        }
    }

    private struct Unwrapping<R>: JSONObjectConsumer {
        let use: (UnsafeRawBufferPointer) -> R
        func consume<Object: JSONObjectReading>(_ object: Object) -> Result<R, Problem> {
            let memberNames = NotificationEnvelope.memberNames
            let payload = object.member(memberNames[0])
            let signedPayload = object.member(memberNames[1])
            if payload != nil, signedPayload != nil {
                return .failure(Problem(description: "the body has both payload and signedPayload"))
            }
            guard let jws = (payload ?? signedPayload)?.stringBytes else {
                return .failure(
                    Problem(
                        description: "the body has no payload (Sign in with Apple) or signedPayload (App Store) string")
                )
            }
            return .success(use(jws))
        }
    }
}
