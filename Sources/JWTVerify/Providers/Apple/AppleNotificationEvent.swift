/// One decoded Apple server-to-server notification event (the `events` claim).
public struct AppleNotificationEvent: Sendable, Hashable {
    /// `email-disabled`, `email-enabled`, `consent-revoked`, `account-delete`, or a newer type as sent.
    public let type: String
    /// The user.
    public let subject: String?
    /// The relay email address, for email events.
    public let email: String?
    /// Whether the email is a private relay address.
    public let isPrivateEmail: Bool?
    /// When it happened, in milliseconds since the epoch.
    public let eventTime: Double?

    /// The event types Apple documents.
    public static let knownTypes: Set<String> = [
        "email-disabled", "email-enabled", "consent-revoked", "account-delete",
    ]

    /// The event as a JSON object (`type`, `sub`, `email`, `is_private_email`, `event_time`).
    public var members: [String: JSONValue] {
        var members: [String: JSONValue] = ["type": .string(type)]
        if let subject { members["sub"] = .string(subject) }
        if let email { members["email"] = .string(email) }
        if let isPrivateEmail { members["is_private_email"] = .bool(isPrivateEmail) }
        if let eventTime { members["event_time"] = .number(eventTime) }
        return members
    }

    /// Decodes the text of an `events` claim.
    static func parse(_ text: UnsafeRawBufferPointer) throws(VerificationError) -> AppleNotificationEvent {
        let parsed = JSONObjectParser.parse(text, EventReading())
        guard case .success(let event?) = parsed else {
            throw VerificationError(.claimType, detail: "events is not a JSON object with a type")
        }
        return try event.get()
    }

    private struct EventReading: JSONObjectConsumer {
        func consume<Object: JSONObjectReading>(_ object: Object) -> Result<AppleNotificationEvent, VerificationError>?
        {
            guard let type = object.member("type")?.string else { return nil }
            let isPrivate = object.member("is_private_email")
            if let isPrivate, isPrivate.lenientBool == nil {
                return .failure(
                    VerificationError(
                        .claimType, detail: "events.is_private_email is neither a boolean nor \"true\"/\"false\""))
            }
            return .success(
                AppleNotificationEvent(
                    type: type, subject: object.member("sub")?.string, email: object.member("email")?.string,
                    isPrivateEmail: isPrivate?.lenientBool, eventTime: object.member("event_time")?.number))
        }
    }
}
