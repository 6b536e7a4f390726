/// Apple server-to-server notifications: `iat` required, and `events`, a JSON object in a
/// string, with its `type`.
public struct AppleNotificationClaims: ProviderClaimSet, Hashable {
    /// The decoded `events` claim.
    public let event: AppleNotificationEvent
    /// The notification's `jti`, when a string: what tells a retried delivery apart.
    public let id: String?

    private init(event: AppleNotificationEvent, id: String?) {
        self.event = event
        self.id = id
    }

    /// Reads the notification's `events` (the notification rules).
    static func read<Object>(_ reader: ProviderClaimReader<Object>) throws(VerificationError) -> AppleNotificationClaims
    {
        try reader.requireIssuedAt()
        guard let events = reader.payload.member("events")?.stringBytes else {
            throw VerificationError(
                .claimType, detail: "events is missing or not a string: not a server-to-server notification")
        }
        // The ID, when a string; never a rejection.
        return AppleNotificationClaims(
            event: try AppleNotificationEvent.parse(events), id: reader.payload.member("jti")?.string)
    }
}

extension AppleNotificationClaims: ProviderClaimMembers {
    /// No members besides `sub`.
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {}
    /// The decoded event, as `event`.
    package func forEachAttachment(_ body: (StaticString, JSONValue) -> Void) { body("event", .object(event.members)) }
    /// `jti`.
    package var notificationID: String? { id }
}
