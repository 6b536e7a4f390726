/// Apple server-to-server notifications: `iat` required, and `events`, a JSON object in a
/// string, with its `type`.
public struct AppleNotificationClaims: ProviderClaimSet, Hashable {
    /// The decoded `events` claim.
    public let event: AppleNotificationEvent

    /// The event of a token verified under ``ProviderRules/appleNotification``.
    public init?(_ token: VerifiedToken) {
        let claims = token.provider
        guard claims.kind == .appleNotification, let event = claims.event else { return nil }
        self.event = event
    }

    /// Reads the notification's `events` (the notification rules).
    static func read<Object>(_ reader: ProviderClaimReader<Object>, into claims: inout ProviderClaims.Fields) throws(VerificationError) {
        try reader.requireIssuedAt()
        guard let events = reader.payload.member("events")?.stringBytes else {
            throw VerificationError(.claimType, detail: "events is missing or not a string: not a server-to-server notification")
        }
        claims.event = try AppleNotificationEvent.parse(events)
        claims.notificationID = reader.payload.member("jti")?.string  // the ID, when a string; never a rejection
    }
}
